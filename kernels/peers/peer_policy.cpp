#include "kernels/peers/peer_policy.hpp"

#include <algorithm>
#include <climits>

namespace arbench {
namespace {

std::string size_text(std::size_t bytes) { return std::to_string(bytes) + " bytes"; }

// bf16 and fp16: the dtypes engines run, and all arbench builds of the peers instantiate.
Support two_byte_only(const Case& c, const char* who) {
  if (c.dtype == DType::fp32)
    return Support::no(std::string(who) + " is built for bf16 and fp16 only (the dtypes the engines run it with)");
  return Support::yes();
}

bool any_of(int v, std::initializer_list<int> set) { return std::find(set.begin(), set.end(), v) != set.end(); }

// What every peer refuses alike (`me`: the peer): a case of another family than its `family`, a
// world not in `worlds` (`whose`: whose limit that is), a dtype but bf16 and fp16, and an
// in-place case (`in_place`: why it cannot be).
Support peer_case_limits(const Case& c, const std::string& me, Family family, std::initializer_list<int> worlds,
                         const char* whose, const char* in_place) {
  if (c.family != family)
    return Support::no(me + (family == Family::allreduce ? " is an all-reduce" : " is a fused all-reduce + RMSNorm"));
  if (!any_of(c.world, worlds)) {
    std::string listed;  // "2, 4 or 8"
    std::size_t i = 0;
    for (const int w : worlds) {
      if (i > 0) listed += i + 1 == worlds.size() ? " or " : ", ";
      listed += std::to_string(w);
      ++i;
    }
    return Support::no(me + " runs on " + listed + " ranks (" + whose + "), not " + std::to_string(c.world));
  }
  if (Support s = two_byte_only(c, me.c_str()); !s.ok) return s;
  if (c.in_place) return Support::no(me + " " + in_place);
  return Support::yes();
}

}  // namespace

// ---- FlashInfer's PCIe-IPC all-reduce -------------------------------------------------------------

PcieIpcLaunch pcie_ipc_seed(int world, std::size_t numel, int elem) {
  const std::size_t payload = numel * std::size_t(elem);
  if (world == 2) return {std::min(16, kPcieIpcMaxBlocks), 128, PcieIpcSchedule::unstaged};
  if (payload >= kPcieIpcStageBytes) {
    const std::size_t by_bytes = payload / kPcieIpcRingBytesPerBlock;
    const int blocks = std::max(1, int(std::min<std::size_t>({std::size_t(kPcieIpcRingMaxBlocks), by_bytes,
                                                              std::size_t(kPcieIpcMaxBlocks)})));
    return {blocks, 256, PcieIpcSchedule::staged_ring};
  }
  if (world == 4) return {1, 256, PcieIpcSchedule::staged};
  return {std::min(16, kPcieIpcMaxBlocks), 256, PcieIpcSchedule::unstaged};
}

PcieIpcLaunch pcie_ipc_launch(std::optional<PcieIpcSchedule> forced, int world, std::size_t numel, int elem,
                              int blocks) {
  PcieIpcLaunch l = pcie_ipc_seed(world, numel, elem);
  if (forced && *forced != l.schedule) {
    l.schedule = *forced;
    if (world == 2) {
      l.blocks = 16, l.threads = 128;
    } else if (*forced == PcieIpcSchedule::staged_ring) {
      const std::size_t by_bytes = numel * std::size_t(elem) / kPcieIpcRingBytesPerBlock;
      l.blocks = std::max(1, int(std::min<std::size_t>(std::size_t(kPcieIpcRingMaxBlocks), by_bytes)));
      l.threads = 256;
    } else if (*forced == PcieIpcSchedule::staged && world == 4) {
      l.blocks = 1, l.threads = 256;
    } else {
      l.blocks = 16, l.threads = 256;
    }
  }
  if (blocks > 0) l.blocks = blocks;
  return l;
}

PcieIpcWorkspace pcie_ipc_workspace(std::size_t numel, std::size_t workspace_bytes, int elem) {
  const std::size_t pack = 16 / std::size_t(elem);
  const std::size_t engine = workspace_bytes / std::size_t(elem) / pack * pack;
  if (numel > engine) return {std::int64_t(numel), false};
  return {std::int64_t(engine), true};
}

Support pcie_ipc_limits(const Case& c, std::optional<PcieIpcSchedule> forced, int blocks, std::size_t workspace_bytes) {
  const std::string me = "flashinfer-pcie-ipc";
  if (Support s = peer_case_limits(c, me, Family::allreduce, {2, 4, 8}, "FlashInfer's PCIe-IPC all-reduce",
                                   "writes a separate output (FlashInfer's API is out of place)");
      !s.ok)
    return s;
  const std::size_t pack = 16 / dtype_size(c.dtype);
  if (c.elements() % pack != 0)
    return Support::no(me + " moves whole 16-byte packs: " + size_text(c.bytes) + " is not a multiple of 16");
  if (c.elements() < pack * std::size_t(c.world))
    return Support::no(me + " needs at least one 16-byte pack per rank (" + std::to_string(16 * c.world) +
                       " bytes at " + std::to_string(c.world) + " ranks; FlashInfer's _admits)");
  if (c.elements() / pack > std::size_t(INT_MAX) / std::size_t(2 * c.world))
    return Support::no(me + " counts packs in int: " + size_text(c.bytes) + " is too large");
  if (const auto ws = pcie_ipc_workspace(c.elements(), workspace_bytes, int(dtype_size(c.dtype)));
      std::size_t(ws.max_numel) / pack > std::size_t(INT_MAX) / std::size_t(2 * c.world))
    return Support::no(me + " counts packs in int: a workspace for " + size_text(workspace_bytes) +
                       " (--peer-workspace) is too large at " + std::to_string(c.world) + " ranks");
  if (forced) {
    if (c.world == 2 && *forced != PcieIpcSchedule::unstaged && *forced != PcieIpcSchedule::staged)
      return Support::no(me + " at 2 ranks has the unstaged and staged schedules only");
    if (*forced == PcieIpcSchedule::flat_staged && c.world != 8)
      return Support::no(me + "[flat-staged] is FlashInfer's 8-rank schedule (at 4 it is [staged])");
  }
  const PcieIpcLaunch l = pcie_ipc_launch(forced, c.world, c.elements(), int(dtype_size(c.dtype)), blocks);
  if (l.blocks > kPcieIpcMaxBlocks)
    return Support::no(me + " takes at most " + std::to_string(kPcieIpcMaxBlocks) + " blocks (--blocks " +
                       std::to_string(l.blocks) + ")");
  if (c.world == 8 && l.schedule == PcieIpcSchedule::staged && l.blocks % 4 != 0)
    return Support::no(me + "'s staged schedule at 8 ranks needs a block count divisible by 4 (--blocks " +
                       std::to_string(l.blocks) + ")");
  return Support::yes();
}

// ---- FlashInfer's fused all-reduce + residual + RMSNorm --------------------------------------------

namespace {

// The block size FlashInfer's launcher gives a row of `hidden` (allreduce_fusion_kernel_launcher):
// hidden / 8 threads per token, split over a cluster of at most 8 blocks (the largest power of two
// that divides it), a block grown to 128 threads by shrinking the cluster.
int fusion_block_threads(int hidden, int elem) {
  const int per_token = hidden / (16 / elem);
  int cluster = 8;
  while (per_token % cluster != 0 && cluster > 1) cluster /= 2;
  int block = per_token / cluster;
  while (block < 128 && cluster >= 2) block *= 2, cluster /= 2;
  return block;
}

std::size_t fusion_lamport_bytes(int world, int tokens, int hidden, int elem) {
  return std::size_t(tokens) * std::size_t(hidden) * std::size_t(elem) * std::size_t(world);
}

}  // namespace

FusionGrid fusion_grid(int world, int tokens, int hidden, int elem, FusionShot shot, int sms, int max_cluster,
                       int max_block_threads) {
  const int per_token = hidden / (16 / elem);
  const int rows = shot == FusionShot::oneshot ? tokens : tokens / world + (tokens % world != 0 ? 1 : 0);
  int cluster = std::max(1, std::min(8, max_cluster));
  while (per_token % cluster != 0 && cluster > 1) cluster /= 2;
  int block = per_token / cluster;
  while (block < 128 && cluster >= 2) block *= 2, cluster /= 2;
  while (rows * cluster > sms && cluster > 1 && block <= max_block_threads / 2) block *= 2, cluster /= 2;
  return {std::min(sms, rows * cluster) / cluster * cluster, block, cluster};
}

FusionShot fusion_shot(int world, int tokens, int hidden, int elem) {
  const double mib = double(tokens) * double(hidden) * 2.0 * double(world) * double(elem) / 1024.0 / 1024.0;
  const double limit = world == 2 ? 512 : world == 4 ? 64 : 42;
  if (mib > limit) return FusionShot::twoshot;
  if (fusion_lamport_bytes(world, tokens, hidden, elem) > kFusionMaxCommBytes) return FusionShot::twoshot;
  return FusionShot::oneshot;
}

double vllm_fusion_oneshot_max_mib(int cc, int world) {
  struct Row {
    int cc;
    double mib[3];  // 2, 4, 8 ranks
  };
  static constexpr Row kTable[] = {{90, {32, 2, 0.5}}, {100, {32, 4, 1}}, {103, {32, 4, 2}}, {107, {32, 4, 2}}};
  const int at = world == 2 ? 0 : world == 4 ? 1 : world == 8 ? 2 : -1;
  for (const Row& r : kTable)
    if (r.cc == cc && at >= 0) return r.mib[at];
  return 0;
}

FusionShot vllm_fusion_shot(int cc, int world, std::size_t bytes) {
  const double mib = vllm_fusion_oneshot_max_mib(cc, world);
  return mib == 0 || double(bytes) <= mib * 1024 * 1024 ? FusionShot::oneshot : FusionShot::twoshot;
}

std::optional<FusionLaunch> fusion_launch(const std::string& config, int cc, int world, int tokens, int hidden,
                                          int elem) {
  FusionLaunch l;
  if (config == "flashinfer") {
    l.rule = FusionRule::flashinfer;
    l.shot = fusion_shot(world, tokens, hidden, elem);
    return l;
  }
  if (config.empty() || config == "vllm") {
    l.shot = vllm_fusion_shot(cc, world, std::size_t(tokens) * std::size_t(hidden) * std::size_t(elem));
  } else if (const auto forced = parse_fusion_shot(config)) {
    l.rule = FusionRule::forced;
    l.shot = *forced;
  } else {
    return std::nullopt;
  }
  l.pdl = true;
  l.trigger_at_end = l.shot == FusionShot::oneshot || tokens > kVllmPdlAdvanceTokens;
  return l;
}

std::string fusion_rule_text(FusionRule r, int cc) {
  switch (r) {
    case FusionRule::vllm: {
      const bool listed = vllm_fusion_oneshot_max_mib(cc, 8) > 0;
      return std::string("vLLM's use_oneshot rule") +
             (listed ? "" : " (no entry for capability " + std::to_string(cc / 10) + "." + std::to_string(cc % 10) +
                                ": one-shot at every size)");
    }
    case FusionRule::flashinfer: return "FlashInfer's own rule (use_oneshot=None)";
    case FusionRule::forced: return "forced (configuration), launched as vLLM launches it";
  }
  return {};
}

Support fusion_limits(const Case& c, std::optional<FusionShot> forced) {
  const std::string me = "flashinfer-fused";
  if (Support s = peer_case_limits(c, me, Family::allreduce_rmsnorm, {2, 4, 8},
                                   "FlashInfer builds its fusion for 2, 4, 8 and 16",
                                   "writes separate outputs (no in-place form)");
      !s.ok)
    return s;
  if (c.tokens < 1 || c.hidden < 1) return Support::no(me + " needs tokens >= 1 and hidden >= 1");
  const int elem = int(dtype_size(c.dtype));
  if (c.hidden % (16 / elem) != 0)
    return Support::no(me + " moves 16-byte accesses along a row: hidden " + std::to_string(c.hidden) +
                       " is not a multiple of " + std::to_string(16 / elem));
  const int block = fusion_block_threads(c.hidden, elem);
  if (block > 1024)
    return Support::no(me + " gives a row one cluster of at most 8 blocks of at most 1024 threads: hidden " +
                       std::to_string(c.hidden) + " needs blocks of " + std::to_string(block) + " threads");
  if (std::size_t(c.tokens) * std::size_t(c.hidden) * std::size_t(c.world) * 2 > std::size_t(INT_MAX))
    return Support::no(me + " counts elements in int: " + std::to_string(c.tokens) + " x " + std::to_string(c.hidden) +
                       " is too large");
  const FusionShot shot = forced ? *forced : fusion_shot(c.world, c.tokens, c.hidden, elem);
  if (shot == FusionShot::twoshot && c.tokens <= c.world)
    return Support::no(me + "'s two-shot kernel splits the tokens over the ranks and needs more tokens than ranks "
                            "(FlashInfer asserts it): " + std::to_string(c.tokens) + " tokens on " +
                       std::to_string(c.world));
  if (shot == FusionShot::twoshot && block < c.world)
    return Support::no(me + "'s two-shot kernel signals every rank from one thread each: a block of " +
                       std::to_string(block) + " threads is fewer than " + std::to_string(c.world) + " ranks");
  if (shot == FusionShot::oneshot && fusion_lamport_bytes(c.world, c.tokens, c.hidden, elem) > kFusionMaxCommBytes)
    return Support::no(me + "[oneshot]'s Lamport buffer would pass FlashInfer's MAX_COMM_SIZE (2 GiB)");
  return Support::yes();
}

// ---- vLLM's custom all-reduce ---------------------------------------------------------------------

VllmStage vllm_stage(int world, std::size_t bytes) {
  if (world == 2) return VllmStage::one;
  if ((world <= 4 && bytes < 512 * 1024) || (world <= 8 && bytes < 256 * 1024)) return VllmStage::one;
  return VllmStage::two;
}

int vllm_blocks(std::size_t bytes, int blocks) {
  if (blocks > 0) return blocks;
  const std::size_t packs = bytes / 16;
  return int(std::min<std::size_t>(std::size_t(kVllmBlockLimit), (packs + kVllmThreads - 1) / kVllmThreads));
}

Support vllm_limits(const Case& c, std::optional<VllmStage> forced) {
  const std::string me = "vllm-custom";
  if (Support s = peer_case_limits(c, me, Family::allreduce, {2, 4, 6, 8}, "vLLM's supported world sizes",
                                   "is out of place (every rank reads every peer's input while outputs are written)");
      !s.ok)
    return s;
  if (c.bytes % 16 != 0) return Support::no(me + " needs a multiple of 16 bytes (" + size_text(c.bytes) + ")");
  if (c.bytes / 16 > std::size_t(INT_MAX)) return Support::no(me + " counts packs in int: " + size_text(c.bytes));
  if (!forced && c.bytes >= kVllmMaxBytes)
    return Support::no(me + ": vLLM runs its custom all-reduce below its 8 MiB buffer only (NCCL above); "
                            "vllm-custom[1stage] or [2stage] measures its kernels at any size");
  return Support::yes();
}

// ---- configurations -----------------------------------------------------------------------------

std::optional<PcieIpcSchedule> parse_pcie_ipc_schedule(const std::string& config) {
  for (int i = 0; i < 4; ++i)
    if (config == kPcieIpcScheduleNames[i]) return static_cast<PcieIpcSchedule>(i);
  return std::nullopt;
}

std::optional<FusionShot> parse_fusion_shot(const std::string& config) {
  if (config == "oneshot") return FusionShot::oneshot;
  if (config == "twoshot") return FusionShot::twoshot;
  return std::nullopt;
}

std::optional<VllmStage> parse_vllm_stage(const std::string& config) {
  if (config == "1stage") return VllmStage::one;
  if (config == "2stage") return VllmStage::two;
  return std::nullopt;
}

const char* fusion_shot_name(FusionShot s) { return s == FusionShot::oneshot ? "oneshot" : "twoshot"; }
const char* vllm_stage_name(VllmStage s) { return s == VllmStage::one ? "1stage" : "2stage"; }

std::vector<std::string> peer_configs(PeerKind k) {
  switch (k) {
    case PeerKind::pcie_ipc: return {"unstaged", "staged", "staged-ring", "flat-staged"};
    case PeerKind::fusion: return {"vllm", "flashinfer", "oneshot", "twoshot"};
    case PeerKind::vllm_custom: return {"1stage", "2stage"};
  }
  return {};
}

std::string peer_config_summary(PeerKind k, const std::string& config) {
  const std::string base = std::string("`") + peer_text(k).name + "` with ";
  switch (k) {
    case PeerKind::pcie_ipc: return base + "FlashInfer's " + config + " schedule forced";
    case PeerKind::fusion:
      if (config == "vllm")
        return base + "vLLM's use_oneshot rule, PDL on: as vLLM's fusion pass runs it (the plain name's choice; "
                      "one-shot at every size on 12.x); SGLang does not run it on 12.x";
      if (config == "flashinfer")
        return base + "FlashInfer's own rule (use_oneshot=None, tuned on B200) and its defaults (no PDL)";
      return base + "FlashInfer's " + (config == "oneshot" ? "one-shot (Lamport)" : "two-shot") +
             " kernel forced (use_oneshot), launched as vLLM launches it";
    case PeerKind::vllm_custom: return base + "vLLM's " + (config == "1stage" ? "one-stage" : "two-stage") +
                                       " kernel forced at every size";
  }
  return {};
}

}  // namespace arbench
