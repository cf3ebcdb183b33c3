// NCCL variant names, and the NCCL configuration per size for one world size; see nccl_plan.hpp.
#include "settings/nccl_plan.hpp"

#include <algorithm>

namespace arbench {

std::optional<NcclVariant> parse_nccl_variant(const std::string& v) {
  if (v == "nccl") return NcclVariant{};
  if (v == "nccl-symm") return NcclVariant{NcclVariant::symm};
  if (v == "nccl[tuned]") return NcclVariant{NcclVariant::tuned};
  if (v.rfind("nccl[", 0) != 0 || v.back() != ']') return std::nullopt;
  std::string cfg = v.substr(5, v.size() - 6);
  NcclVariant n{NcclVariant::forced};
  if (const auto ch = cfg.find("/ch:"); ch != std::string::npos) {
    const auto count = tuner::parse_u64(cfg.substr(ch + 4));
    if (!count || *count < 1 || *count > std::uint64_t(tuner::kMaxChannels)) return std::nullopt;
    n.channels = int(*count);
    cfg = cfg.substr(0, ch);
  }
  const auto slash = cfg.find('/');
  if (slash == std::string::npos) return std::nullopt;
  n.algo = tuner::algo_index(cfg.substr(0, slash));
  n.proto = tuner::proto_index(cfg.substr(slash + 1));
  // Only the configurations arbench runs (ring and tree): names are lower case.
  if ((n.algo != tuner::kAlgoRing && n.algo != tuner::kAlgoTree) || n.proto < 0 || cfg != tuner::lower(cfg))
    return std::nullopt;
  return n;
}

std::string nccl_forced_name(int algo, int proto, int channels) {
  return std::string("nccl[") + tuner::algo_name(algo) + "/" + tuner::proto_name(proto) +
         (channels > 0 ? "/ch:" + std::to_string(channels) : "") + "]";
}

namespace {

struct Choice {
  const ResultCase* pick = nullptr;  // nullptr: NCCL's own choice
  Evidence evidence;                 // pick (or the best forced) vs nccl
  bool has_evidence = false;
  std::string note;
};

// Consecutive sizes with the same choice become one range (bounds in nccl_plan.hpp).
std::vector<NcclRange> to_ranges(const std::vector<std::uint64_t>& sizes, const std::vector<Choice>& choices) {
  std::vector<NcclRange> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::string variant = choices[i].pick ? choices[i].pick->variant : "nccl";
    if (out.empty() || out.back().variant != variant || out.back().note != choices[i].note) {
      NcclRange r;
      r.min_bytes = out.empty() ? 0 : out.back().max_bytes + 1;
      r.variant = variant;
      if (const auto n = parse_nccl_variant(variant); n && n->kind == NcclVariant::forced) {
        r.algo = n->algo;
        r.proto = n->proto;
        r.channels = n->channels;
      }
      r.note = choices[i].note;
      out.push_back(std::move(r));
    }
    out.back().max_bytes = sizes[i];
    if (choices[i].has_evidence) out.back().evidence.push_back(choices[i].evidence);
  }
  return out;
}

}  // namespace

std::vector<tuner::Rule> NcclPlan::rules() const {
  std::vector<tuner::Rule> out;
  for (const NcclRange& r : ranges) {
    if (r.keeps_nccl()) continue;
    tuner::Rule rule{world, nnodes, r.min_bytes, r.max_bytes, r.algo, r.proto, r.channels, ""};
    rule.note = r.variant + " beats NCCL's own choice at " + std::to_string(r.evidence.size()) + " measured size" +
                (r.evidence.size() == 1 ? "" : "s") + (r.evidence.empty() ? "" : ", e.g. " + evidence_text(r.evidence.front()));
    out.push_back(std::move(rule));
  }
  return out;
}

int NcclPlan::max_channels(bool example_format) const {
  int m = 0;
  for (const NcclRange& r : example_format ? example : ranges) m = std::max(m, r.channels);
  return m;
}

NcclPlan plan_nccl(const Measured& m, int world, const VerdictOptions& opt) {
  NcclPlan p;
  p.world = world;
  p.nnodes = m.facts.nodes;
  const auto nv = m.facts.all_nvlink.find(world);
  p.nvlink = nv != m.facts.all_nvlink.end() && nv->second;
  const std::string channel_line =
      allreduce_run_line(m, world, kNcclConfigVariants, std::string("--nccl-channels ") + kNcclChannelSweep,
                         "nccl-channels-" + std::to_string(world) + ".json");

  const auto sizes_it = m.allreduce.find(world);
  std::vector<std::uint64_t> sizes;
  std::vector<Choice> choices, example;
  int ll128_left_out = 0, forced_seen = 0;
  bool example_possible = true;
  std::uint64_t first_without_channels = 0;
  if (sizes_it != m.allreduce.end()) {
    for (const auto& [size, variants] : sizes_it->second) {
      const auto def = variants.find("nccl");
      const ResultCase* best = nullptr;
      const ResultCase* best_with_channels = nullptr;
      for (const auto& [name, c] : variants) {
        const auto n = parse_nccl_variant(name);
        if (!n || n->kind != NcclVariant::forced) continue;
        if (n->proto == tuner::kProtoLL128 && !p.nvlink) {
          ++ll128_left_out;
          continue;
        }
        ++forced_seen;
        if (!best || c->median_us < best->median_us) best = c;
        if (n->channels > 0 && (!best_with_channels || c->median_us < best_with_channels->median_us))
          best_with_channels = c;
      }
      if (const auto t = variants.find("nccl[tuned]"); t != variants.end() && def != variants.end())
        p.tuned.push_back(weigh(*t->second, *def->second, "bytes", size, opt));
      if (def == variants.end()) {
        if (best) p.notes.push_back("no `nccl` case at " + size_text(size, "bytes") + ": that size is not decided");
        continue;
      }
      Choice c;
      if (best) {
        c.evidence = weigh(*best, *def->second, "bytes", size, opt);
        c.has_evidence = true;
        if (c.evidence.beats) c.pick = best;
      }
      sizes.push_back(size);
      choices.push_back(c);

      // The example format: the winner if it has explicit channels, else the fastest that has.
      Choice e;
      const auto n = c.pick ? parse_nccl_variant(c.pick->variant) : std::nullopt;
      if (n && n->channels > 0) {
        e = c;
      } else if (best_with_channels) {
        e.pick = best_with_channels;
        e.evidence = weigh(*best_with_channels, *def->second, "bytes", size, opt);
        e.has_evidence = true;
        e.note = "stands in for " +
                 (c.pick ? c.pick->variant + " with NCCL's channel count" : std::string("NCCL's own choice")) +
                 ", fastest here: the example format needs an explicit channel count";
      } else if (example_possible) {
        example_possible = false;
        first_without_channels = size;
      }
      example.push_back(e);
    }
  }

  if (ll128_left_out > 0)
    p.notes.push_back(std::to_string(ll128_left_out) + " LL128 cases left out: these " + std::to_string(world) +
                      " GPUs are not all NVLink-connected, and over PCIe a 128-byte LL128 store may tear "
                      "(NCCL itself enables LL128 only over NVLink)");
  if (sizes.empty()) {
    p.missing = "NCCL's own choice (`nccl`) was not measured at " + std::to_string(world) + " GPUs";
    p.run_line = channel_line;
    return p;
  }
  if (forced_seen == 0) {
    p.missing = "no forced NCCL configuration was measured at " + std::to_string(world) +
                " GPUs, so NCCL's own choice has nothing to be compared with";
    p.run_line = channel_line;
    return p;
  }
  p.ranges = to_ranges(sizes, choices);
  if (example_possible) {
    p.example = to_ranges(sizes, example);
  } else {
    p.example_missing = "no configuration with an explicit channel count (`nccl[<algo>/<proto>/ch:N]`) was measured at " +
                        size_text(first_without_channels, "bytes") + ", and the example plugin runs any row without "
                        "one on a single channel";
    p.example_run_line = channel_line;
  }
  return p;
}

std::string nccl_version_gate(const std::string& measured, const StackVersions& stack) {
  if (!stack.nccl) return {};
  const std::string yours = stack.nccl->text() + " (" + (stack.source.empty() ? "--nccl" : stack.source) + ")";
  const std::string rerun = "; measure with the engine's NCCL to make it `set`: ARBENCH_NCCL_LIBRARY=<the "
                            "libnccl.so.2 the engine loads> arbench run ..., then arbench settings (docs/engine-settings.md)";
  const auto m = parse_version(measured);
  if (!m) return "the results do not record which NCCL measured them ('" + measured + "'), your engine loads NCCL " + yours + rerun;
  if (m->major == stack.nccl->major && m->minor == stack.nccl->minor) return {};
  return "measured with NCCL " + m->text() + ", your engine loads NCCL " + yours + ": another " +
         (m->major != stack.nccl->major ? "major" : "minor") + " version, whose own choices may differ" + rerun;
}

}  // namespace arbench
