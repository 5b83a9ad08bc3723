// Which failure category an NCCL source file belongs to. NCCL names the file and line of
// every WARN (2.20+: "transport/net_ib.cc:1295 NCCL WARN ...") and of every step of an error's
// way back up ("misc/socket.cc:567 -> 2"), so a message no rule knows, from a release no rule
// was written for, still says which subsystem failed.
#pragma once

#include <optional>
#include <string_view>

namespace ff::analysis {

// The category of the subsystem `file` implements ("transport/net_ib.cc", "net_ib/gdr.cc",
// "include/shm.h"), or nullopt for files that serve every subsystem (init.cc, enqueue.cc,
// group.cc, proxy.cc, net.cc...).
std::optional<std::string_view> category_of_nccl_file(std::string_view file);

}  // namespace ff::analysis
