// The NCCL path check: which GPU pairs NCCL sends through host memory (its SHM transport) instead
// of P2P at the current NCCL_P2P_LEVEL / NCCL_P2P_DISABLE, by the rule arbench records every NCCL
// case's data path with (measure/data_path.hpp: NCCL 2.28.9, src/graph/paths.cc), and the setting
// that changes it.
#include <algorithm>

#include "doctor/sysfs/box.hpp"
#include "doctor/checks.hpp"
#include "measure/data_path.hpp"
#include "topo/relation.hpp"

namespace arbench::doctor {
namespace {

const char* level_name(int level) {
  static const char* names[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"};
  return level >= 0 && level <= 9 ? names[level] : "?";
}

}  // namespace

Check check_nccl_path(const Inputs& in) {
  Check c("nccl_path", "NCCL's path per GPU pair",
          "NCCL uses P2P only for pairs no farther apart than its P2P level (PXB by default: not through a CPU's "
          "host bridge); the others go through host memory, at a fraction of the link's speed, while arbench's own "
          "kernels and the engines' custom all-reduce still use P2P.");
  const auto& gpus = in.topo.gpus;
  std::vector<int> all;
  for (std::size_t i = 0; i < gpus.size(); ++i) all.push_back(int(i));
  const bool amd_two = gpus.size() <= 2 && amd_cpu(in.root.string());
  const int level = nccl_p2p_level(in.env, amd_two);
  std::string env_text;
  for (const char* k : {"NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE"})
    if (auto it = in.env.find(k); it != in.env.end()) env_text += (env_text.empty() ? "" : " ") + std::string(k) + "=" + it->second;
  const std::string setting = env_text.empty() ? "NCCL's default" : env_text;
  c.data = {{"p2p_level", level_name(level)}, {"env", env_text}, {"shm_pairs", nlohmann::json::array()}};
  if (fewer_than_two_gpus(c, in)) return c;
  const auto rel = topo::relation_matrix(in.topo, all);
  int shm = 0, needed = 0;
  for (std::size_t a = 0; a < gpus.size(); ++a)
    for (std::size_t b = a + 1; b < gpus.size(); ++b) {
      if (nccl_pair_transport(rel[a][b], level) != NcclTransport::shm) continue;
      ++shm;
      needed = std::max(needed, nccl_path_type(rel[a][b]));
      c.data["shm_pairs"].push_back({gpus[a].bus_id, gpus[b].bus_id});
      c.add(gpu_label(int(a)) + "-" + gpu_label(int(b)), Verdict::slows,
            std::string(topo::relation_code(rel[a][b])) + ": through host memory at P2P level " + level_name(level) +
                " (" + setting + ")");
    }
  const bool disabled = level == 0 && in.env.count("NCCL_P2P_DISABLE");
  const std::size_t pairs = gpus.size() * (gpus.size() - 1) / 2;
  const std::string fix = disabled ? "unset NCCL_P2P_DISABLE (once the p2p check finds every pair working)"
                                   : "export NCCL_P2P_LEVEL=" + std::string(level_name(needed)) +
                                         " (once the acs, iommu and p2p checks pass for these pairs)";
  for (Item& i : c.items) i.fix = fix;
  c.add("all pairs", Verdict::ok,
        std::to_string(pairs - std::size_t(shm)) + " of " + std::to_string(pairs) + " pairs P2P at level " +
            level_name(level) + " (" + setting + (amd_two ? "; AMD CPU with at most two GPUs: SYS" : "") + ")");
  c.summary = std::to_string(shm) + " of " + std::to_string(pairs) + " pairs through host memory at level " +
              level_name(level) + " (" + setting + ")";
  return c;
}

}  // namespace arbench::doctor
