#include "evidence/pickle_reader.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

namespace ff::evidence {

const PickleValue* PickleTree::find(const PickleValue& dict, std::string_view key) const {
  if (dict.kind != PickleKind::kDict) return nullptr;
  const PickleValue* found = nullptr;  // a repeated key: the later one wins, as in Python
  for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    const PickleValue& k = values[dict.items[i]];
    if (k.kind == PickleKind::kString && k.text == key) found = &values[dict.items[i + 1]];
  }
  return found;
}

namespace {

const char* opcode_name(unsigned char op) {
  switch (op) {
    case 'c':
      return "GLOBAL";
    case 0x93:
      return "STACK_GLOBAL";
    case 'R':
      return "REDUCE";
    case 'b':
      return "BUILD";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 0x81:
      return "NEWOBJ";
    case 0x92:
      return "NEWOBJ_EX";
    case 'P':
      return "PERSID";
    case 'Q':
      return "BINPERSID";
    case 0x82:
    case 0x83:
    case 0x84:
      return "EXT";
    case 0x8f:
      return "EMPTY_SET";
    case 0x90:
      return "ADDITEMS";
    case 0x91:
      return "FROZENSET";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    case 'I':
      return "INT";
    case 'L':
      return "LONG";
    case 'F':
      return "FLOAT";
    case 'S':
      return "STRING";
    case 'T':
      return "BINSTRING";
    case 'U':
      return "SHORT_BINSTRING";
    case 'V':
      return "UNICODE";
    case 'g':
      return "GET";
    case 'p':
      return "PUT";
    default:
      return nullptr;
  }
}

class Reader {
 public:
  Reader(std::string_view in, PickleTree& out, PickleError& err, const PickleLimits& lim)
      : in_(in), out_(out), err_(err), lim_(lim) {}

  bool run() {
    out_.values.clear();
    // Most values cost a few bytes of pickle (an opcode and a short argument); growing the
    // arena by doubling would move every value several times.
    out_.values.reserve(std::min(in_.size() / 4, lim_.max_values));
    if (in_.empty() || static_cast<unsigned char>(in_[0]) != 0x80)
      return fail(0, "not a pickle (no PROTO opcode 0x80 at the start)");
    while (pos_ < in_.size()) {
      op_at_ = pos_;
      auto op = static_cast<unsigned char>(in_[pos_++]);
      if (op == '.') return stop();
      if (!step(op)) return false;
    }
    return fail(in_.size(), "truncated: the pickle ends without its STOP opcode");
  }

 private:
  std::string_view in_;
  PickleTree& out_;
  PickleError& err_;
  const PickleLimits& lim_;
  std::size_t pos_ = 0;
  std::size_t op_at_ = 0;
  std::vector<std::uint32_t> stack_;
  std::vector<std::size_t> marks_;
  std::vector<std::uint32_t> memo_;
  std::vector<bool> memo_set_;

  bool fail(std::size_t at, std::string msg) {
    err_.offset = at;
    err_.message = std::move(msg);
    return false;
  }
  bool fail(std::string msg) { return fail(op_at_, std::move(msg)); }

  bool take(std::size_t n, std::string_view& s) {
    if (in_.size() - pos_ < n) return fail(in_.size(), "truncated inside an opcode's argument");
    s = in_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool take_le(std::size_t n, std::uint64_t& v) {
    std::string_view s;
    if (!take(n, s)) return false;
    v = 0;
    for (std::size_t i = 0; i < n; ++i)
      v |= std::uint64_t{static_cast<unsigned char>(s[i])} << (8 * i);
    return true;
  }

  bool make(PickleValue v, std::uint32_t& idx) {
    if (out_.values.size() >= lim_.max_values) return fail("too many values (limit reached)");
    idx = static_cast<std::uint32_t>(out_.values.size());
    v.at = op_at_;
    out_.values.push_back(std::move(v));
    return true;
  }
  bool push(std::uint32_t idx) {
    if (stack_.size() >= lim_.max_stack) return fail("stack too deep (limit reached)");
    stack_.push_back(idx);
    return true;
  }
  bool push_new(PickleValue v) {
    std::uint32_t idx = 0;
    return make(std::move(v), idx) && push(idx);
  }
  std::size_t mark_base() const { return marks_.empty() ? 0 : marks_.back(); }
  bool pop(std::uint32_t& idx) {
    if (stack_.size() <= mark_base()) return fail("stack underflow");
    idx = stack_.back();
    stack_.pop_back();
    return true;
  }
  bool top(std::uint32_t& idx) {
    if (stack_.size() <= mark_base()) return fail("stack underflow");
    idx = stack_.back();
    return true;
  }
  // Pops everything above the last MARK into `items`.
  bool pop_mark(std::vector<std::uint32_t>& items) {
    if (marks_.empty()) return fail("no MARK to pop to");
    std::size_t base = marks_.back();
    marks_.pop_back();
    items.assign(stack_.begin() + static_cast<std::ptrdiff_t>(base), stack_.end());
    stack_.resize(base);
    return true;
  }
  bool grow(PickleValue& c, std::size_t more) {
    if (c.items.size() + more > lim_.max_container)
      return fail("container too large (limit reached)");
    return true;
  }
  bool string_value(std::size_t n, PickleKind kind) {
    if (n > lim_.max_string) return fail("string too long (limit reached)");
    std::string_view s;
    if (!take(n, s)) return false;
    PickleValue v;
    v.kind = kind;
    v.text.assign(s);
    return push_new(std::move(v));
  }
  bool put(std::uint64_t slot) {
    if (slot >= lim_.max_memo) return fail("memo index too large");
    std::uint32_t idx = 0;
    if (!top(idx)) return false;
    if (memo_.size() <= slot) {
      memo_.resize(slot + 1);
      memo_set_.resize(slot + 1);
    }
    memo_[slot] = idx;
    memo_set_[slot] = true;
    return true;
  }
  bool get(std::uint64_t slot) {
    if (slot >= memo_.size() || !memo_set_[slot]) return fail("memo GET of an unset slot");
    return push(memo_[slot]);
  }
  bool stop() {
    if (!marks_.empty()) return fail("STOP with an open MARK");
    if (stack_.size() != 1)
      return fail("STOP with " + std::to_string(stack_.size()) + " values on the stack, not 1");
    out_.root = stack_.back();
    return true;
  }
  bool integer(std::int64_t v) {
    PickleValue p;
    p.kind = PickleKind::kInt;
    p.integer = v;
    return push_new(std::move(p));
  }
  bool long_value(std::size_t n) {
    std::string_view s;
    if (n > lim_.max_string) return fail("integer too long");
    if (!take(n, s)) return false;
    if (n > 8) {
      // Wider than 64 bits is only representable when the extra bytes are sign extension.
      unsigned char ext = (static_cast<unsigned char>(s[7]) & 0x80) ? 0xff : 0x00;
      for (std::size_t i = 8; i < n; ++i)
        if (static_cast<unsigned char>(s[i]) != ext) return fail("integer does not fit in 64 bits");
      n = 8;
    }
    std::uint64_t u = 0;
    for (std::size_t i = 0; i < n; ++i)
      u |= std::uint64_t{static_cast<unsigned char>(s[i])} << (8 * i);
    if (n > 0 && n < 8 && (static_cast<unsigned char>(s[n - 1]) & 0x80))
      u |= ~std::uint64_t{0} << (8 * n);
    return integer(static_cast<std::int64_t>(u));
  }
  bool tuple_of(std::size_t n) {
    if (stack_.size() < mark_base() + n) return fail("stack underflow");
    PickleValue t;
    t.kind = PickleKind::kTuple;
    t.items.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
    stack_.resize(stack_.size() - n);
    return push_new(std::move(t));
  }
  bool append_to_list(const std::vector<std::uint32_t>& items) {
    std::uint32_t target = 0;
    if (!top(target)) return false;
    PickleValue& l = out_.values[target];
    if (l.kind != PickleKind::kList) return fail("APPEND to something that is not a list");
    if (!grow(l, items.size())) return false;
    l.items.insert(l.items.end(), items.begin(), items.end());
    return true;
  }
  bool set_items(const std::vector<std::uint32_t>& kv) {
    if (kv.size() % 2) return fail("SETITEMS with an odd number of values");
    std::uint32_t target = 0;
    if (!top(target)) return false;
    PickleValue& d = out_.values[target];
    if (d.kind != PickleKind::kDict) return fail("SETITEM on something that is not a dict");
    if (!grow(d, kv.size())) return false;
    d.items.insert(d.items.end(), kv.begin(), kv.end());
    return true;
  }

  // One opcode: the family that knows it runs it; nullopt from a family means "not mine".
  // An opcode no family takes is refused with the reason.
  bool step(unsigned char op) {
    if (auto r = stack_op(op)) return *r;
    if (auto r = scalar_op(op)) return *r;
    if (auto r = string_op(op)) return *r;
    if (auto r = container_op(op)) return *r;
    if (auto r = memo_op(op)) return *r;
    return refuse(op);
  }

  // Protocol and framing, MARK, and the opcodes that only move what is on the stack.
  std::optional<bool> stack_op(unsigned char op) {
    std::uint64_t u = 0;
    std::string_view s;
    std::vector<std::uint32_t> items;
    std::uint32_t a = 0;
    switch (op) {
      case 0x80:  // PROTO
        if (!take(1, s)) return false;
        if (static_cast<unsigned char>(s[0]) < 2 || static_cast<unsigned char>(s[0]) > 5)
          return fail("pickle protocol " + std::to_string(static_cast<unsigned char>(s[0])) +
                      " is not supported (2 to 5 are)");
        return true;
      case 0x95:  // FRAME: only a hint about buffering
        return take_le(8, u);
      case '(':
        if (marks_.size() >= lim_.max_marks) return fail("too many nested MARKs (limit reached)");
        marks_.push_back(stack_.size());
        return true;
      case '0':
        return pop(a);
      case '1':
        return pop_mark(items);
      case '2':
        return top(a) && push(a);
      default:
        return std::nullopt;
    }
  }

  // None, booleans, integers and floats.
  std::optional<bool> scalar_op(unsigned char op) {
    std::uint64_t u = 0;
    std::string_view s;
    switch (op) {
      case 'N':
        return push_new(PickleValue{});
      case 0x88:
      case 0x89: {
        PickleValue v;
        v.kind = PickleKind::kBool;
        v.boolean = op == 0x88;
        return push_new(std::move(v));
      }
      case 'J':
        if (!take_le(4, u)) return false;
        return integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(u)));
      case 'K':
        return take_le(1, u) && integer(static_cast<std::int64_t>(u));
      case 'M':
        return take_le(2, u) && integer(static_cast<std::int64_t>(u));
      case 0x8a:
        return take_le(1, u) && long_value(u);
      case 0x8b:
        if (!take_le(4, u)) return false;
        if (u & 0x80000000u) return fail("negative LONG4 length");
        return long_value(u);
      case 'G': {  // BINFLOAT: big-endian IEEE 754 double
        if (!take(8, s)) return false;
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i)
          bits = (bits << 8) | static_cast<unsigned char>(s[static_cast<std::size_t>(i)]);
        PickleValue v;
        v.kind = PickleKind::kFloat;
        std::memcpy(&v.real, &bits, sizeof bits);
        return push_new(std::move(v));
      }
      default:
        return std::nullopt;
    }
  }

  // Text and bytes, each with a length of 1, 4 or 8 bytes before it.
  std::optional<bool> string_op(unsigned char op) {
    std::uint64_t u = 0;
    switch (op) {
      case 'X':
        return take_le(4, u) && string_value(u, PickleKind::kString);
      case 0x8c:
        return take_le(1, u) && string_value(u, PickleKind::kString);
      case 0x8d:
        return take_le(8, u) && string_value(u, PickleKind::kString);
      case 'B':
        return take_le(4, u) && string_value(u, PickleKind::kBytes);
      case 'C':
        return take_le(1, u) && string_value(u, PickleKind::kBytes);
      case 0x8e:
        return take_le(8, u) && string_value(u, PickleKind::kBytes);
      default:
        return std::nullopt;
    }
  }

  // Lists, dicts and tuples: made empty, from the stack, or filled in later.
  std::optional<bool> container_op(unsigned char op) {
    std::vector<std::uint32_t> items;
    std::uint32_t a = 0, b = 0;
    switch (op) {
      case ']': {
        PickleValue v;
        v.kind = PickleKind::kList;
        return push_new(std::move(v));
      }
      case '}': {
        PickleValue v;
        v.kind = PickleKind::kDict;
        return push_new(std::move(v));
      }
      case ')':
        return tuple_of(0);
      case 0x85:
        return tuple_of(1);
      case 0x86:
        return tuple_of(2);
      case 0x87:
        return tuple_of(3);
      case 'l':
      case 't':
      case 'd': {
        if (!pop_mark(items)) return false;
        if (items.size() > lim_.max_container) return fail("container too large (limit reached)");
        PickleValue v;
        v.kind = op == 'l' ? PickleKind::kList : op == 't' ? PickleKind::kTuple : PickleKind::kDict;
        if (op == 'd' && items.size() % 2) return fail("DICT with an odd number of values");
        v.items = std::move(items);
        return push_new(std::move(v));
      }
      case 'a':
        if (!pop(a)) return false;
        items.push_back(a);
        return append_to_list(items);
      case 'e':
        return pop_mark(items) && append_to_list(items);
      case 's':
        if (!pop(b) || !pop(a)) return false;
        items = {a, b};
        return set_items(items);
      case 'u':
        return pop_mark(items) && set_items(items);
      default:
        return std::nullopt;
    }
  }

  // The memo: PUT a value under a slot, GET it back (shared references).
  std::optional<bool> memo_op(unsigned char op) {
    std::uint64_t u = 0;
    switch (op) {
      case 'q':
        return take_le(1, u) && put(u);
      case 'r':
        return take_le(4, u) && put(u);
      case 0x94:
        return put(memo_.size());
      case 'h':
        return take_le(1, u) && get(u);
      case 'j':
        return take_le(4, u) && get(u);
      default:
        return std::nullopt;
    }
  }

  // Any other opcode: one that builds objects (never in a dump) or one that is not pickle.
  bool refuse(unsigned char op) {
    char hex[8];
    static const char* digits = "0123456789abcdef";
    hex[0] = '0';
    hex[1] = 'x';
    hex[2] = digits[op >> 4];
    hex[3] = digits[op & 15];
    hex[4] = 0;
    if (const char* name = opcode_name(op))
      return fail(std::string("opcode ") + hex + " (" + name +
                  ") is not plain data; a Flight Recorder dump never holds it");
    return fail(std::string("unknown pickle opcode ") + hex);
  }
};

}  // namespace

bool read_pickle(std::string_view bytes, PickleTree& out, PickleError& error,
                 const PickleLimits& limits) {
  Reader r(bytes, out, error, limits);
  return r.run();
}

}  // namespace ff::evidence
