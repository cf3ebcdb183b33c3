// The channel count NCCL gave a communicator, read from its INIT log (host logic + a file).
//
// A forced configuration on N channels (`nccl[ring/ll/ch:N]`, --nccl-channels) asks the tuner
// plugin for N channels, and NCCL caps the request at the communicator's own count (NVIDIA/nccl
// v2.28.9-1, src/enqueue.cc: a task's channels are min(requested, comm->nChannels)). NCCL has no
// API that returns that count; it logs it once per communicator at INFO level, INIT subsystem
// (src/init.cc: "%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p
// channels per peer"). So the process that runs such cases (a child per environment, env_child.hpp)
// sends NCCL's log to a file of its own before its first NCCL call, reads the count after each
// case, and labels a case whose N exceeds it: `ch:16` and `ch:32` may be the same run under two
// names, and `arbench settings` must never choose a count that did not run.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbench {

// Every "<N> coll channels" count in NCCL log text, in order (one per communicator and rank).
std::vector<int> nccl_coll_channels_in_log(std::string_view text);

// The NCCL log lines of `text` that are warnings (" NCCL WARN "): they are echoed to stderr, since
// the log file would otherwise hide them from the user.
std::vector<std::string> nccl_warnings_in_log(std::string_view text);

// Where NCCL logs for this process, and what it has logged since the last read.
class NcclInitLog {
 public:
  // Sends NCCL's INIT log to `file` (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT, NCCL_DEBUG_FILE):
  // call before the process's first NCCL call (NCCL reads them once). Returns nullopt, changing
  // nothing, when the user set NCCL_DEBUG, NCCL_DEBUG_SUBSYS or NCCL_DEBUG_FILE: their logging
  // wins and the count stays unknown (`why_unknown()` of a default-constructed log says so).
  static std::optional<NcclInitLog> start(const std::string& file);
  // The counts logged since the last call; NCCL's warnings among the new lines go to `warn`.
  std::vector<int> new_coll_channels(std::ostream& warn);
  const std::string& file() const { return file_; }

 private:
  explicit NcclInitLog(std::string file) : file_(std::move(file)) {}
  std::string file_;
  std::uint64_t offset_ = 0;
};

// The labels of a case that asked for `asked` channels on a communicator that has `counts`
// (the ranks' counts from the log; the smallest applies): key/value pairs for the case's
// settings. Empty when nothing was logged.
std::vector<std::pair<std::string, std::string>> nccl_channel_labels(int asked, const std::vector<int>& counts);

}  // namespace arbench
