// libFuzzer: PyTorch Flight Recorder dumps (pickle, and JSON when the bytes look like it).
// Reading must never crash, loop or leak, whatever the bytes; a dump that reads is compared
// across ranks as three copies (one of them cut short) and rendered.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "evidence/flight_recorder_analysis.hpp"
#include "evidence/flight_recorder_dump.hpp"
#include "evidence/pickle_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ff::evidence::PickleTree tree;
  ff::evidence::PickleError perr;
  (void)ff::evidence::read_pickle(bytes, tree, perr);
  std::vector<ff::evidence::FlightRecorderDump> dumps(3);
  ff::evidence::DumpError err;
  if (!ff::evidence::read_flight_recorder_dump("nccl_trace_rank_0", bytes, dumps[0], err)) return 0;
  dumps[1] = dumps[0];
  dumps[2] = dumps[0];
  if (!dumps[2].entries.empty()) dumps[2].entries.pop_back();
  for (int r = 0; r < 3; ++r) dumps[static_cast<std::size_t>(r)].rank = r;
  auto analysis = ff::evidence::analyze_flight_recorder(dumps);
  (void)ff::evidence::render_flight_recorder(analysis);
  return 0;
}
