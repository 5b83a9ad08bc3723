// The lint of evidence-capture settings a launch file already has: values that look right
// and capture nothing. Pure: file texts in, warnings out (said with the capture fix).
#pragma once

#include <string>
#include <vector>

#include "fix/engine.hpp"

namespace ff::fix {

// Warnings, each naming the file and line:
//  - a Flight Recorder buffer (TORCH_FR_BUFFER_SIZE, TORCH_NCCL_TRACE_BUFFER_SIZE) sized like
//    bytes: the value is a number of entries, and a million-entry ring costs host memory and
//    dump time for nothing (some guides set 2097152 "(2 MB)");
//  - a dump path (TORCH_FR_DUMP_TEMP_FILE, TORCH_NCCL_DEBUG_INFO_TEMP_FILE) under /tmp in a
//    file that runs the job in a container: the dumps are gone with the container;
//  - NCCL_DEBUG_FILE without %h or %p: every process writes the same file.
//  - NCCL_DEBUG, NCCL_DEBUG_FILE or NCCL_DEBUG_SUBSYS set for some nodes or ranks only
//    (rank_scoped_debug_lint.hpp).
std::vector<std::string> capture_settings_lint(const std::vector<LaunchFile>& files);

}  // namespace ff::fix
