#include "sweep/option_scope.hpp"

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "arbench/core/nccl_library_name.hpp"

namespace arbench {
namespace {

bool takes_blocks(const std::string& variant) {
  // Deny-list: a new custom kernel takes --blocks unless it is added here.
  return variant != "reference" && variant.rfind("ring", 0) != 0 && variant.rfind("nccl", 0) != 0 &&
         variant != "unfused-nccl";
}

// The custom kernels, whose symmetric memory --symm-mem's provider maps: all but the NCCL variants
// (NCCL's memory whatever is asked) and the reference (no peer memory). A deny-list as above.
bool takes_symm_provider(const std::string& variant) {
  return variant != "reference" && variant.rfind("nccl", 0) != 0 && variant != "unfused-nccl";
}

void note(SweepScope& s, const Case& c) {
  (c.family == Family::allreduce ? s.allreduce : s.fused) = true;
  s.ring = s.ring || c.variant.rfind("ring", 0) == 0;
  s.blocks = s.blocks || takes_blocks(c.variant);
  s.ll128 = s.ll128 || c.variant.find("/ll128]") != std::string::npos;
  s.symm = s.symm || takes_symm_provider(c.variant);
  s.islands = s.islands || c.variant.find("island-") != std::string::npos;
  s.nccl_libs = s.nccl_libs || !split_library(c.variant).library.empty();
  s.pcie_ipc = s.pcie_ipc || c.variant.rfind("flashinfer-pcie-ipc", 0) == 0;
}

}  // namespace

SweepScope sweep_scope(const Sweep& sweep) {
  SweepScope s;
  for (const Case& c : sweep.cases) note(s, c);
  for (const SkippedCase& k : sweep.skipped) note(s, k.c);
  return s;
}

void check_options_apply(const RunConfig& cfg, Backend b, const SweepScope& scope) {
  const auto given = [&](const char* option) { return cfg.given.count(option) > 0; };
  const auto refuse = [](const std::string& option, const std::string& why) {
    throw UsageError(option + " " + why);
  };
  for (const char* o : {"--tokens", "--hidden", "--model", "--eps"})
    if (given(o) && !scope.fused)
      refuse(o, "shapes the allreduce_rmsnorm family, and this sweep has no case of it (--family and --variants "
                "select allreduce variants only); drop it, or add --family allreduce_rmsnorm");
  for (const char* o : {"--min-bytes", "--max-bytes", "--step-factor", "--in-place"})
    if (given(o) && !scope.allreduce)
      refuse(o, "applies to the allreduce family, and this sweep has none (the allreduce_rmsnorm family's message "
                "is --tokens x --hidden, always out of place); drop it, or add --family allreduce");
  // An option of variants this sweep does not run: what it does, and which variant to add.
  const auto needs_variant = [&](const char* option, bool runs, const std::string& does, const std::string& add) {
    if (given(option) && !runs)
      refuse(option, does + ", which this sweep does not run; drop it, or add " + add + " to --variants");
  };
  for (const char* o : {"--ring-chunk", "--ring-channels", "--ring-order"})
    needs_variant(o, scope.ring, "tunes the native ring (variant ring)", "ring");
  needs_variant("--islands", scope.islands, "sets the islands of the island variants (island-*, fused-island-*)",
                "e.g. island-oneshot");
  if (given("--nccl-lib") && !scope.nccl_libs)
    refuse("--nccl-lib", "adds the variants of each library it names (nccl@<label>, nccl-symm@<label>, of the "
                         "allreduce family), and --family and --variants select none of them; drop it, or add e.g. "
                         "'nccl@*' to --variants (`arbench list --nccl-lib ...` names them)");
  needs_variant("--peer-workspace", scope.pcie_ipc, "sizes the workspace of the peer flashinfer-pcie-ipc",
                "flashinfer-pcie-ipc");
  if (given("--blocks") && !scope.blocks)
    refuse("--blocks", "sets the blocks of arbench's own kernels (oneshot-*, twoshot, fused-*, unfused-oneshot), and "
                       "this sweep runs none of them (the ring takes --ring-channels, NCCL chooses its own); drop it");
  if (b != Backend::cuda)
    for (const char* o : {"--links", "--no-link-probe"})
      if (given(o))
        refuse(o, std::string("concerns the links between GPUs, measured on the cuda backend only (this run uses "
                              "the ") + std::string(backend_name(b)) + " backend); drop it");
  if (given("--no-sol") && b == Backend::single_gpu)
    refuse("--no-sol", "turns off the speed-of-light floors, which the single-gpu backend never computes (its "
                       "virtual ranks move nothing between GPUs); drop it");
  // The host backend's ranks are threads of one process sharing its memory, single-gpu's all live
  // on GPU 0: neither maps peer memory, so there is no provider to choose.
  if (given("--symm-mem") && (b != Backend::cuda || !scope.symm))
    refuse("--symm-mem", b != Backend::cuda
                             ? std::string("chooses who maps the custom kernels' peer memory on the cuda backend (this "
                                           "run uses the ") + std::string(backend_name(b)) +
                                   " backend, whose ranks share one memory); drop it, or add --backend cuda"
                             : "chooses who maps the custom kernels' peer memory, and this sweep runs NCCL's variants "
                               "only (NCCL's own memory whatever is asked); drop it, or add a custom kernel such as "
                               "oneshot-pull to --variants");
  if (given("--allow-ll128-pcie") && (b != Backend::cuda || !scope.ll128))
    refuse("--allow-ll128-pcie", b != Backend::cuda
                                     ? std::string("concerns NCCL's LL128 protocol, which only the cuda backend runs "
                                                   "(this run uses the ") + std::string(backend_name(b)) + " backend); drop it"
                                     : "allows nccl[ring/ll128] and nccl[tree/ll128], and --variants selects neither; "
                                       "drop it, or add e.g. 'nccl[ring/ll128]' to --variants");
}

void drop_unused_config(nlohmann::json& config, Backend b, const SweepScope& scope) {
  if (!scope.fused)
    for (const char* k : {"tokens", "hidden", "model", "eps"}) config.erase(k);
  if (!scope.ring)
    for (const char* k : {"ring_chunk", "ring_channels", "ring_order"}) config.erase(k);
  if (!scope.blocks) config.erase("blocks");
  if (!scope.islands) config.erase("islands");
  if (!scope.pcie_ipc) config.erase("peer_workspace_bytes");
  if (b != Backend::cuda)
    for (const char* k : {"links_file", "link_probe", "allow_ll128_pcie"}) config.erase(k);
  if (b != Backend::cuda || !scope.symm) config.erase("symm_mem");
}

}  // namespace arbench
