#include "jsonio/json_reader.hpp"

#include <simdjson.h>

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ff::jsonio {

static_assert(kPadding == simdjson::SIMDJSON_PADDING, "the parser's padding");
static_assert(kMaxJsonDepth == simdjson::DEFAULT_MAX_DEPTH, "the parser's depth limit");

namespace {

using json = nlohmann::json;

// After a message this big the parser's buffers (tape and strings, several times the
// message) are given back rather than kept for the next, usually tiny, message.
constexpr std::size_t kKeepCapacity = std::size_t{8} << 20;
constexpr std::size_t kLongString = std::size_t{1} << 20;

// Recursion depth is bounded by the parser's max_depth (kMaxJsonDepth).
json convert(simdjson::dom::element e, const LongString& long_string) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      json j = json::object();
      simdjson::dom::object obj = e.get_object().value_unsafe();
      // Duplicate keys: the last one wins, as with nlohmann's parser.
      for (simdjson::dom::key_value_pair kv : obj)
        j[std::string(kv.key)] = convert(kv.value, long_string);
      return j;
    }
    case element_type::ARRAY: {
      json j = json::array();
      simdjson::dom::array arr = e.get_array().value_unsafe();
      auto& v = j.get_ref<json::array_t&>();
      v.reserve(arr.size());
      for (simdjson::dom::element x : arr) v.push_back(convert(x, long_string));
      return j;
    }
    case element_type::STRING: {
      std::string_view s = e.get_string().value_unsafe();
      std::string str;
      if (long_string && s.size() >= kLongString) str = long_string(s.size());
      str.append(s);
      return json(std::move(str));
    }
    case element_type::INT64: {
      // nlohmann types a non-negative integer as unsigned: keep its types exactly.
      std::int64_t v = e.get_int64().value_unsafe();
      return v >= 0 ? json(static_cast<std::uint64_t>(v)) : json(v);
    }
    case element_type::UINT64:
      return json(e.get_uint64().value_unsafe());
    case element_type::DOUBLE:
      return json(e.get_double().value_unsafe());
    case element_type::BOOL:
      return json(e.get_bool().value_unsafe());
    case element_type::NULL_VALUE:
      break;
  }
  return json(nullptr);
}

}  // namespace

struct JsonReader::Impl {
  LongString long_string;
  std::unique_ptr<simdjson::dom::parser> parser;
  void fresh() { parser = std::make_unique<simdjson::dom::parser>(); }
};

JsonReader::JsonReader(LongString long_string) : impl_(std::make_unique<Impl>()) {
  impl_->long_string = std::move(long_string);
  impl_->fresh();
}

JsonReader::~JsonReader() = default;

struct JsonReader::Buffers::State {
  std::unique_ptr<simdjson::dom::parser> parser;
};

JsonReader::Buffers::Buffers() = default;
JsonReader::Buffers::~Buffers() = default;
JsonReader::Buffers::Buffers(Buffers&&) noexcept = default;
JsonReader::Buffers& JsonReader::Buffers::operator=(Buffers&&) noexcept = default;

JsonReader::Buffers JsonReader::prepare(std::size_t size) {
  Buffers out;
  auto parser = std::make_unique<simdjson::dom::parser>();
  // The parser's own buffers (structural indexes) and the document's (tape, strings): what
  // parse() would allocate for a text of this size.
  if (parser->allocate(size) != simdjson::SUCCESS ||
      parser->doc.allocate(size) != simdjson::SUCCESS)
    return out;  // the parse allocates (and reports) as usual
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  // The strings of a text take at most its size; whole pages only. A kernel without the
  // call (before 5.14) leaves the faults to the parse.
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<std::uintptr_t>(parser->doc.string_buf.get());
  const std::uintptr_t begin = (base + page - 1) / page * page;
  const std::uintptr_t end = (base + size) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#endif
  out.state_ = std::make_unique<Buffers::State>();
  out.state_->parser = std::move(parser);
  return out;
}

void JsonReader::adopt(Buffers buffers) {
  if (buffers.state_ && buffers.state_->parser) impl_->parser = std::move(buffers.state_->parser);
}

std::optional<nlohmann::json> JsonReader::parse(std::string_view text, bool padded,
                                                std::string* error) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  simdjson::dom::element root;
  auto err = impl_->parser->parse(text.data(), text.size(), !padded).get(root);
  std::optional<json> out;
  if (!err) {
    out = convert(root, impl_->long_string);
  } else if (err == simdjson::NUMBER_ERROR || err == simdjson::CAPACITY) {
    // Valid JSON may hold numbers simdjson does not represent; nlohmann decides.
    json j = json::parse(text, nullptr, false);
    if (!j.is_discarded())
      out = std::move(j);
    else if (error)
      *error = simdjson::error_message(err);
  } else if (error) {
    *error = simdjson::error_message(err);
  }
  if (impl_->parser->capacity() > kKeepCapacity) impl_->fresh();
  return out;
}

}  // namespace ff::jsonio
