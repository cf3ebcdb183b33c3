// The copy-engine family's names, summaries, traffic and configurations (ce-twoshot, ce-ring,
// ce-island; docs/variants.md, "Copy engines"): what the registry entries of the host twin
// (ce_twin.cpp) and the GPU variant (ce_gpu.cu) share, and the options a variant is made with.
#pragma once

#include <memory>
#include <string>

#include "arbench/algo/ce/ce_policy.hpp"
#include "arbench/traffic.hpp"
#include "arbench/variant.hpp"
#include "kernels/variant_entry.hpp"

namespace arbench {

enum class CeAlgo { twoshot, ring, island };

// What each moves between ranks (ce_traffic.cpp; arbench/traffic.hpp).
Traffic ce_twoshot_traffic(const TrafficQuery& q);
Traffic ce_ring_traffic(const TrafficQuery& q);
Traffic ce_island_traffic(const TrafficQuery& q);

// By CeAlgo.
inline constexpr VariantText kCeText[] = {
    {"ce-twoshot", Family::allreduce,
     "copy engines gather each rank's 1/N into staging, a small kernel reduces it, copies send it to every peer",
     &ce_twoshot_traffic},
    {"ce-ring", Family::allreduce,
     "copy engines run a ring (reduce-scatter into the next rank's staging, a small kernel adds, then all-gather)",
     &ce_ring_traffic},
    {"ce-island", Family::allreduce,
     "copy engines follow the PCIe tree: reduce-scatter inside each island, the 1/k partials across, all-gather inside",
     &ce_island_traffic},
};

inline const char* ce_algo_name(CeAlgo a) { return text_of(kCeText, a).name; }

// Knobs for tests; production uses the defaults.
struct CeOptions {
  algo::CeConfig config{};  // the configuration (`ce-ring[chunk:1M]`); tests set it on the host too
  bool skip_waits = false;  // planted bug: every stream wait passes at once
  bool skip_resets = false;  // planted bug: flags keep their counts into the next op
  bool ignore_rates = false;  // planted bug: the default chunk ignores the copy-engine rate (a constant)
};

// `e` with the copy-engine configurations (`ce-ring[chunk:1M]`, docs/variants.md): the listed
// ones and any other parse_ce_config accepts, each made by `make(algo, options)`.
template <class Make>
VariantEntry with_ce_configurations(VariantEntry e, CeAlgo algo, Make make) {
  e.configs = {"chunk:256K", "chunk:1M", "chunk:4M", "streams:2"};
  e.make_configured = [algo, make](const std::string& cfg) -> std::unique_ptr<Variant> {
    CeOptions opt;
    opt.config = *algo::parse_ce_config(cfg);  // Registry::find accepted it (accepts_config)
    return make(algo, opt);
  };
  e.accepts_config = [](const std::string& cfg) { return algo::parse_ce_config(cfg).has_value(); };
  e.config_summary = [algo](const std::string& cfg) {
    return "`" + std::string(ce_algo_name(algo)) + "` with " + cfg + " (chunk bytes, copy streams per rank, staging slots)";
  };
  return e;
}

}  // namespace arbench
