#include "jsonio/json_reader.hpp"

#include <simdjson.h>

#include <cstdint>

#include "jsonio/long_strings.hpp"

namespace ff::jsonio {

static_assert(kPadding == simdjson::SIMDJSON_PADDING, "the parser's padding");
static_assert(kMaxJsonDepth == simdjson::DEFAULT_MAX_DEPTH, "the parser's depth limit");

namespace {

using json = nlohmann::json;

// After a message this big the parser's buffers (tape and strings, several times the
// message) are given back rather than kept for the next, usually tiny, message.
constexpr std::size_t kKeepCapacity = std::size_t{8} << 20;

// The strings lifted out of a text (long_strings.hpp), handed back to the conversion as it
// meets their places: it visits strings, keys included, in text order.
struct Lifted {
  std::vector<LiftedText::Span> spans;
  std::vector<std::string> values;
  std::size_t next = 0;     // the next span to place
  std::size_t ordinal = 0;  // strings visited so far
  // The lifted value when the string visited now is the next lifted one.
  std::string* take() {
    std::size_t at = ordinal++;
    if (next < spans.size() && spans[next].ordinal == at) return &values[next++];
    return nullptr;
  }
};

// Recursion depth is bounded by the parser's max_depth (kMaxJsonDepth).
json convert(simdjson::dom::element e, const LongString& long_string, std::size_t long_bytes,
             Lifted* lifted) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      json j = json::object();
      simdjson::dom::object obj = e.get_object().value_unsafe();
      // Duplicate keys: the last one wins, as with nlohmann's parser.
      for (simdjson::dom::key_value_pair kv : obj) {
        std::string* key = lifted ? lifted->take() : nullptr;
        json v = convert(kv.value, long_string, long_bytes, lifted);
        j[key ? std::move(*key) : std::string(kv.key)] = std::move(v);
      }
      return j;
    }
    case element_type::ARRAY: {
      json j = json::array();
      simdjson::dom::array arr = e.get_array().value_unsafe();
      auto& v = j.get_ref<json::array_t&>();
      v.reserve(arr.size());
      for (simdjson::dom::element x : arr) v.push_back(convert(x, long_string, long_bytes, lifted));
      return j;
    }
    case element_type::STRING: {
      if (std::string* value = lifted ? lifted->take() : nullptr) return json(std::move(*value));
      std::string_view s = e.get_string().value_unsafe();
      std::string str;
      if (long_string && s.size() >= long_bytes) str = long_string(s.size());
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
  std::size_t long_bytes = kLongStringBytes;
  std::unique_ptr<simdjson::dom::parser> parser;
  void fresh() { parser = std::make_unique<simdjson::dom::parser>(); }
};

JsonReader::JsonReader(LongString long_string, std::size_t long_string_bytes)
    : impl_(std::make_unique<Impl>()) {
  impl_->long_string = std::move(long_string);
  impl_->long_bytes = long_string_bytes;
  impl_->fresh();
}

JsonReader::~JsonReader() = default;

std::optional<nlohmann::json> JsonReader::parse_lifted(std::string_view text) {
  LiftedText rest;
  if (!lift_long_strings(text, impl_->long_bytes, kPadding, rest)) return std::nullopt;
  simdjson::dom::element root;
  // Whatever the rest's parse says is not final: on any error the whole text is parsed as
  // before, for the same error (or nlohmann's verdict on numbers) and the same message.
  if (impl_->parser->parse(rest.rest.data(), rest.rest.size(), false).get(root)) {
    return std::nullopt;
  }
  Lifted lifted;
  lifted.values.reserve(rest.spans.size());
  for (const auto& span : rest.spans) {
    std::string value = impl_->long_string(span.end - span.begin);
    if (!unescape_string(text.substr(span.begin, span.end - span.begin), value))
      return std::nullopt;
    lifted.values.push_back(std::move(value));
  }
  lifted.spans = std::move(rest.spans);
  json out = convert(root, impl_->long_string, impl_->long_bytes, &lifted);
  if (impl_->parser->capacity() > kKeepCapacity) impl_->fresh();
  return out;
}

std::optional<nlohmann::json> JsonReader::parse(std::string_view text, bool padded,
                                                std::string* error) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (impl_->long_string && text.size() >= impl_->long_bytes) {
    if (auto j = parse_lifted(text)) return j;
  }
  simdjson::dom::element root;
  auto err = impl_->parser->parse(text.data(), text.size(), !padded).get(root);
  std::optional<json> out;
  if (!err) {
    out = convert(root, impl_->long_string, impl_->long_bytes, nullptr);
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
