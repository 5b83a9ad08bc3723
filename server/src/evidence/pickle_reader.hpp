// A reader for the subset of Python's pickle format that plain data uses: dicts, lists,
// tuples, str, bytes, int, float, bool and None, in protocols 2 to 5 (what torch's own
// Pickler writes for a Flight Recorder dump, and what Python's pickle module writes for the
// same data). Anything that would run code when unpickled (GLOBAL, REDUCE, BUILD...) is an
// error, not an object: the reader never executes or imports anything.
//
// Values live in one arena and refer to each other by index, so a pickle that shares or
// nests a container inside itself (DUP, memo GETs) costs nothing extra and cannot leak.
// Hard limits bound the work any byte sequence can cause; every error names the byte
// offset of the opcode that failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ff::evidence {

enum class PickleKind : std::uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kBytes,
  kList,
  kTuple,
  kDict
};

struct PickleValue {
  PickleKind kind = PickleKind::kNone;
  bool boolean = false;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;                  // kString (UTF-8 as written) and kBytes
  std::vector<std::uint32_t> items;  // kList/kTuple: elements; kDict: key, value, key, value...
  std::size_t at = 0;                // byte offset of the opcode that made it
};

struct PickleLimits {
  std::size_t max_values = std::size_t{1} << 24;     // values in the arena
  std::size_t max_stack = std::size_t{1} << 22;      // entries on the stack, all marks together
  std::size_t max_marks = 256;                       // open MARKs (nesting while building)
  std::size_t max_memo = std::size_t{1} << 22;       // memo slots
  std::size_t max_string = std::size_t{1} << 28;     // bytes in one str/bytes
  std::size_t max_container = std::size_t{1} << 24;  // items in one container
};

struct PickleTree {
  std::vector<PickleValue> values;
  std::uint32_t root = 0;

  const PickleValue& at(std::uint32_t i) const { return values[i]; }
  // The value of `key` in the dict `dict` (a str key), or nullptr.
  const PickleValue* find(const PickleValue& dict, std::string_view key) const;
};

struct PickleError {
  std::size_t offset = 0;  // byte offset of the failing opcode (or of the end of the input)
  std::string message;
};

// Reads one pickle from `bytes` (which must start with the PROTO opcode). Returns false and
// fills `error` when the input is not a complete pickle of plain data within `limits`.
bool read_pickle(std::string_view bytes, PickleTree& out, PickleError& error,
                 const PickleLimits& limits = {});

}  // namespace ff::evidence
