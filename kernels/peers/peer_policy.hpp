// What each peer accepts and how it is launched, restated as arbench's own host code so that the
// limits become skip reasons before any work and the choices are tested without the peers'
// headers (tests/host/peers/). Every number here is a fact read in the peer's source, named with
// the file it came from (FlashInfer at commit fb28d7242b35, 2026-08-22; vLLM's
// vllm/distributed/device_communicators/custom_all_reduce.py at commit 0ad80649); where arbench
// chooses for itself (a forced schedule's grid), the comment says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "arbench/core/case.hpp"
#include "arbench/variant.hpp"
#include "kernels/peers/peer_text.hpp"

namespace arbench {

// ---- FlashInfer's PCIe-IPC all-reduce (flashinfer/comm/pcie_ipc_policy.py) ----------------------

inline constexpr int kPcieIpcMaxBlocks = 128;                       // MAX_BLOCKS: the workspace's size
inline constexpr std::size_t kPcieIpcStageBytes = 32 * 1024;        // _SEED_STAGE_BYTES
inline constexpr std::size_t kPcieIpcRingBytesPerBlock = 256 * 1024;  // _SEED_RING_BYTES_PER_BLOCK
inline constexpr int kPcieIpcRingMaxBlocks = 4;                     // _SEED_RING_MAX_BLOCKS

struct PcieIpcLaunch {
  int blocks = 1, threads = 256;
  PcieIpcSchedule schedule = PcieIpcSchedule::unstaged;
};

// FlashInfer's seed (_seed): the launch it uses for a shape nothing has tuned, which is every
// shape until the user runs its tuner. `numel` elements of `elem` bytes on `world` ranks.
PcieIpcLaunch pcie_ipc_seed(int world, std::size_t numel, int elem);
// A forced schedule's launch: the seed's grid for that schedule where the seed has one at this
// world size (world 2: 16 x 128; the ring's block rule; staged at 4: 1 x 256); arbench's choice of
// 16 x 256 where it has none (staged and flat-staged at 8: 16 is a multiple of 4, as the staged
// kernel at 8 needs). `blocks` > 0 (--blocks) replaces the block count.
PcieIpcLaunch pcie_ipc_launch(std::optional<PcieIpcSchedule> forced, int world, std::size_t numel, int elem,
                              int blocks = 0);
// The workspace's max_numel as an engine sizes it (vLLM's flashinfer_pcie_ipc_all_reduce.py:
// max_numel = its largest CUDA-graph capture size x hidden): `workspace_bytes` (--peer-workspace)
// in elements, whole 16-byte packs; the case's own `numel` where that is larger (an engine would
// fall back to another all-reduce there: FlashInfer's workspace cannot grow). FlashInfer places the
// epoch halves world x max_numel apart, so a workspace larger than the case costs time at small
// batch (pcie_ipc_ar.py's docstring): that is the engine's cost, and measured with it.
struct PcieIpcWorkspace {
  std::int64_t max_numel = 0;
  bool engine_sized = true;  // false: the case is larger than the engine's workspace
};
PcieIpcWorkspace pcie_ipc_workspace(std::size_t numel, std::size_t workspace_bytes, int elem);

// Why `c` cannot run (FlashInfer's _admits and _is_launchable, the launcher's checks in
// csrc/pcie_ipc_all_reduce.cu), or yes: world 2, 4 or 8; bf16 or fp16; a whole number of 16-byte
// packs, at least one per rank; out of place; the schedule at this world size.
// `workspace_bytes`: as pcie_ipc_workspace takes it (0: the case's own size).
Support pcie_ipc_limits(const Case& c, std::optional<PcieIpcSchedule> forced, int blocks = 0,
                        std::size_t workspace_bytes = 0);

// ---- FlashInfer's fused all-reduce + residual + RMSNorm (flashinfer/comm/trtllm_ar.py) -----------

inline constexpr int kFusionBarrierFlags = 256;  // BarrierFlagCount (kBarrierFlagCount in the header)
// MAX_COMM_SIZE: the Lamport buffer's cap, MAX_INT32 rounded down to 2 MiB.
inline constexpr std::size_t kFusionMaxCommBytes = 2147483647ull & ~((std::size_t(1) << 21) - 1);

// _should_use_oneshot: one-shot while the Lamport traffic (tokens x hidden x 2 x world x elem) is
// at most 512 MiB at 2 ranks, 64 at 4, 42 at 8 (_use_oneshot_heuristics); two-shot above, and
// two-shot wherever the one-shot Lamport buffer would pass MAX_COMM_SIZE.
FusionShot fusion_shot(int world, int tokens, int hidden, int elem);
// The launch allreduce_fusion_kernel_launcher gives the kARResidualRMSNorm pattern (its other
// patterns' quantization branches left out): a cluster of blocks per token row (one-shot: every
// row; two-shot: a rank's share), clusters shrunk while they outnumber the SMs, the grid capped at
// the SM count. `sms` of the device, `max_cluster` its cluster limit for the kernel,
// `max_block_threads` what the kernel's registers allow per block.
struct FusionGrid {
  int grid = 0, block = 0, cluster = 1;
};
FusionGrid fusion_grid(int world, int tokens, int hidden, int elem, FusionShot shot, int sms, int max_cluster,
                       int max_block_threads);
// ---- the fusion as each engine runs it (flashinfer-fused[vllm], [flashinfer]; docs/variants.md) ----
//
// vLLM's fusion pass passes use_oneshot itself (_select_flashinfer_allreduce_use_oneshot, in
// vllm/compilation/passes/fusion/allreduce_rms_fusion.py and later the collective-norm module it
// moved to): one-shot while the all-reduce's bytes are at most its table's MiB for the GPU's
// capability and world size, one-shot at every size where the table has no entry (capability 12.x
// has none at any release read); it launches with launch_with_pdl=True and completes at the end
// for one-shot or above PDL_ADVANCE_LAUNCH_TOKENS tokens. The table of v0.15.0's and v0.16.0's docs
// holds 9.0 and 10.0; the index copy of the newer module adds 10.3 and 10.7. SGLang does not call
// the kernel on capability 12.x: python/sglang/srt/layers/communicator.py
// (apply_flashinfer_allreduce_fusion: SM90 or SM100 only). FlashInfer's own rule (use_oneshot=None)
// is fusion_shot above, launched as allreduce_fusion's defaults (no PDL, completion at the end).

inline constexpr int kVllmPdlAdvanceTokens = 16;  // PDL_ADVANCE_LAUNCH_TOKENS

// vLLM's one-shot table: MiB for capability `cc` (major x 10 + minor: 90, 100, 120) at `world`
// ranks; 0 where the table has no entry.
double vllm_fusion_oneshot_max_mib(int cc, int world);
// vLLM's choice for an all-reduce of `bytes` (tokens x hidden x elem).
FusionShot vllm_fusion_shot(int cc, int world, std::size_t bytes);

enum class FusionRule { vllm, flashinfer, forced };
struct FusionLaunch {
  FusionShot shot = FusionShot::oneshot;
  bool pdl = false;             // launch_with_pdl
  bool trigger_at_end = true;   // trigger_completion_at_end
  FusionRule rule = FusionRule::vllm;
};
// The launch of configuration `config`: "" and "vllm" as vLLM runs it; "flashinfer" FlashInfer's own
// rule and defaults; "oneshot" / "twoshot" that kernel forced, launched as vLLM launches it. nullopt
// for any other name. `cc` as vllm_fusion_oneshot_max_mib takes it.
std::optional<FusionLaunch> fusion_launch(const std::string& config, int cc, int world, int tokens, int hidden,
                                          int elem);
// "vLLM's rule (...)" and the like: what a case records as `chosen_by`.
std::string fusion_rule_text(FusionRule r, int cc);

// Why `c` cannot run, or yes: world 2, 4 or 8; bf16 or fp16; hidden a multiple of 8 (16-byte
// accesses) and at most 65536 (one token per cluster of at most 8 blocks of at most 1024
// threads); out of place; two-shot only with more tokens than ranks (trtllm_allreduce_fusion's
// assert); one-shot only while its Lamport buffer fits MAX_COMM_SIZE.
Support fusion_limits(const Case& c, std::optional<FusionShot> forced);

// ---- vLLM's custom all-reduce (csrc/custom_all_reduce.cuh, and the Python that drives it) -------

inline constexpr std::size_t kVllmMaxBytes = 8192 * 1024;  // CustomAllreduce's max_size (custom_all_reduce.py)
inline constexpr int kVllmThreads = 512;                   // allreduce()'s threads
inline constexpr int kVllmBlockLimit = 36;                 // allreduce()'s block_limit

// CustomAllreduce::allreduce's choice told the GPUs are fully connected: one-stage at 2 ranks;
// else one-stage below 512 KiB up to 4 ranks, below 256 KiB up to 8; two-stage above.
VllmStage vllm_stage(int world, std::size_t bytes);
// min(block_limit, packs / threads rounded up); `blocks` > 0 (--blocks) replaces it (at most the
// header's kMaxBlocks, checked by the adapter).
int vllm_blocks(std::size_t bytes, int blocks = 0);
// Why `c` cannot run, or yes: world 2, 4, 6 or 8 (_SUPPORTED_WORLD_SIZES); bf16 or fp16; a
// multiple of 16 bytes; out of place (peers read the input while outputs are written); as vLLM
// selects (no configuration), only below its 8 MiB buffer (should_custom_ar).
Support vllm_limits(const Case& c, std::optional<VllmStage> forced);

// ---- configurations -----------------------------------------------------------------------------

std::optional<PcieIpcSchedule> parse_pcie_ipc_schedule(const std::string& config);
std::optional<FusionShot> parse_fusion_shot(const std::string& config);
std::optional<VllmStage> parse_vllm_stage(const std::string& config);
const char* fusion_shot_name(FusionShot s);  // "oneshot", "twoshot"
const char* vllm_stage_name(VllmStage s);    // "1stage", "2stage"

}  // namespace arbench
