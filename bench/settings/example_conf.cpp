// The example plugin's CSV; see example_conf.hpp.
#include "settings/example_conf.hpp"

#include <algorithm>

namespace arbench {
namespace {

// The example plugin reads lines with fgets into 256 bytes: a longer comment would spill its
// tail into the next read and be parsed as a row.
constexpr std::size_t kMaxLine = 200;

std::string comment(const std::string& text) {
  std::string s = "# " + text;
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > kMaxLine) s = s.substr(0, kMaxLine - 3) + "...";
  return s + "\n";
}

std::string join_paths(const std::vector<std::string>& paths) {
  std::string s;
  for (const std::string& p : paths) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace

std::string example_conf(const Measured& m, const std::vector<NcclPlan>& plans) {
  bool any = false;
  for (const NcclPlan& p : plans) any = any || (!p.example.empty() && !p.rules().empty());
  if (!any) return {};
  std::string s;
  s += comment("NCCL tuner configuration for NCCL's example tuner plugin, written by `arbench settings`");
  s += comment("source: " + join_paths(m.paths));
  s += comment("machine fingerprint " + (m.facts.fingerprint.empty() ? std::string("unknown") : m.facts.fingerprint) +
               "; measured with NCCL " + (m.facts.nccl_version.empty() ? std::string("unknown") : m.facts.nccl_version));
  s += comment("Use it only with the example plugin of NCCL 2.30.3 or newer: the 2.27.5 to 2.29 one crashes on");
  s += comment("the first matching row (it indexes NCCL's flat cost table as float**).");
  s += comment("That plugin runs every collective no row matches on ONE channel (all-gather, reduce-scatter,");
  s += comment("other GPU counts, sizes above the last row): libarbench-nccl-tuner.so does not; prefer it.");
  s += comment("Every row sets its channel count; the rows cover 0 to the largest measured size per GPU count;");
  s += comment("LL128 only where every GPU pair is NVLink-connected.");
  s += comment("NCCL caps a row's channels at the communicator's channel count, as it did when this was measured.");
  s += comment("collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff");
  for (const NcclPlan& p : plans) {
    if (p.example.empty()) continue;
    if (p.rules().empty()) {
      s += "\n" + comment(std::to_string(p.world) + " GPUs: NCCL's own choice wins at every measured size: no rows. Do not load");
      s += comment("the example plugin at this GPU count: it would run every collective on one channel.");
      continue;
    }
    s += "\n" + comment(std::to_string(p.world) + " GPUs (" + (p.nvlink ? "NVLink" : "PCIe") + ")");
    for (const NcclRange& r : p.example) {
      s += comment(r.variant + (r.note.empty() ? ": measured faster than NCCL's own choice" : ": " + r.note));
      s += std::string("allreduce,") + std::to_string(r.min_bytes) + "," + std::to_string(r.max_bytes) + "," +
           tuner::algo_name(r.algo) + "," + tuner::proto_name(r.proto) + "," + std::to_string(r.channels) + "," +
           std::to_string(p.nnodes) + "," + std::to_string(p.world) + ",-1,-1\n";
    }
  }
  return s;
}

}  // namespace arbench
