// libFuzzer: report masking (--mask) of text and JSON. It must never crash, loop or leak,
// whatever the bytes (the first line, when short, is a known host name).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/mask.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ff::report::Masker m;
  auto nl = text.find('\n');
  if (nl != std::string_view::npos && nl < 64) m.add_host(text.substr(0, nl));
  (void)m.mask(text);
  nlohmann::json j = {{"a", std::string(text)}, {"b", {std::string(text.substr(0, size / 2))}}};
  m.mask(j);
  return 0;
}
