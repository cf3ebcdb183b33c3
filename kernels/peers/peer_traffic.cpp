// What the peers move between ranks (arbench/traffic.hpp), M bytes of message on N ranks, from
// their kernels as read in FlashInfer at commit fb28d7242b35 (include/flashinfer/comm/
// pcie_ipc_all_reduce.cuh: its kernel selection table and each kernel's comment;
// trtllm_allreduce_fusion.cuh) and vLLM's custom_all_reduce.cuh (cross_device_reduce_1stage,
// _2stage). As the peer picks, the schedule follows its choice (peer_policy.hpp); a configuration
// forces it.
//   flashinfer-pcie-ipc  2 ranks: each pushes M to the other (ipc_tp2_remote_push_kernel).
//                        4, unstaged: one-shot push of M to every peer (push_oneshot_param_kernel).
//                        4 staged, 8 flat-staged: reduce-scatter then all-gather, every rank
//                        pushing its shards to every peer at once (ipc_rsag_push_param_kernel).
//                        4 staged-ring: the same bytes in N-1 passes per phase, in pass p every rank
//                        pushing to rank + 1 + p only (ipc_rsag_ring_push_param_kernel): priced
//                        as a ring (one outbound and one inbound stream per GPU at a time).
//                        8 unstaged, staged, staged-ring: the 4+4 island decomposition (ranks 0-3
//                        and 4-7, whatever the box's islands): reduce-scatter inside each island,
//                        the owners' shards exchanged across with the partner rank (r +- 4), then
//                        all-gather inside (ipc_topo_rsag8_*).
//   vllm-custom          1stage: barrier, every rank loads M from every peer; 2stage: every rank
//                        loads its shard from every peer, barrier, every rank loads every owner's
//                        reduced shard.
//   flashinfer-fused     oneshot: every rank stores its rows into every peer's Lamport buffer;
//                        twoshot: the rows' shards pushed to their owners, the reduced shards
//                        pushed back to every rank. The norm is local.
#include <string>

#include "arbench/traffic_schedules.hpp"
#include "kernels/peers/peer_policy.hpp"
#include "kernels/peers/peer_traffic.hpp"

namespace arbench {
namespace {

// The 8-rank topology kernels: reduce-scatter inside ranks 0-3 and 4-7, the owner pairs across,
// all-gather inside; every transfer a push.
Traffic flashinfer_islands(const TrafficQuery& q, int round_trips) {
  Traffic t;
  t.island_of = {0, 0, 0, 0, 1, 1, 1, 1};
  const double shard = double(q.c.bytes) / 4;
  std::vector<TrafficFlow> across;
  for (int r = 0; r < 8; ++r) across.push_back({r, (r + 4) % 8, shard});
  t.schedules.push_back(
      {"FlashInfer PCIe-IPC 4+4 islands (reduce-scatter inside, owner pairs across, all-gather inside; pushes)",
       {island_inside_phase("island reduce-scatter: every rank pushes each island peer's shard to it",
                            TrafficDirection::push, t.island_of, shard),
        island_across_phase("every owner pushes its island's reduced shard to its partner in the other island",
                            TrafficDirection::push, std::move(across)),
        island_inside_phase("island all-gather: every owner pushes its reduced shard to every island peer",
                            TrafficDirection::push, t.island_of, shard)},
       round_trips,
       1});
  return t;
}

PcieIpcSchedule pcie_ipc_schedule_of(const TrafficQuery& q) {
  for (int s = 0; s < 4; ++s)
    if (q.config == kPcieIpcScheduleNames[s]) return PcieIpcSchedule(s);
  return pcie_ipc_seed(q.c.world, q.c.bytes / dtype_size(q.c.dtype), int(dtype_size(q.c.dtype))).schedule;
}

}  // namespace

Traffic flashinfer_pcie_ipc_traffic(const TrafficQuery& q) {
  Traffic t;
  if (one_rank(q, &t)) return t;
  const int n = q.c.world;
  const double m = double(q.c.bytes);
  const PcieIpcSchedule s = pcie_ipc_schedule_of(q);
  if (n == 2 || (n == 4 && s == PcieIpcSchedule::unstaged) || (n != 4 && n != 8)) {
    t.schedules.push_back(oneshot_schedule("FlashInfer PCIe-IPC one-shot push", TrafficDirection::push, n, m, 1, 1));
  } else if (n == 8 && s != PcieIpcSchedule::flat_staged) {
    return flashinfer_islands(q, s == PcieIpcSchedule::staged_ring ? 11 : 5);
  } else if (s == PcieIpcSchedule::staged_ring) {
    t.schedules.push_back(ring_schedule("FlashInfer PCIe-IPC staged ring (N-1 permutation passes per phase)",
                                        ring_or_identity({}, n), m / n, 2 * (n - 1), 1));
  } else {
    t.schedules.push_back(twoshot_schedule("FlashInfer PCIe-IPC reduce-scatter + all-gather, every peer at once",
                                           TrafficDirection::push, TrafficDirection::push, n, m / n, m / n, 3, 1));
  }
  return t;
}

Traffic vllm_custom_traffic(const TrafficQuery& q) {
  Traffic t;
  if (one_rank(q, &t)) return t;
  const int n = q.c.world;
  const double m = double(q.c.bytes);
  const bool one = q.config == "1stage" || (q.config != "2stage" && vllm_stage(n, q.c.bytes) == VllmStage::one);
  if (one)
    t.schedules.push_back(oneshot_schedule("vLLM one-stage (barrier, load every peer)", TrafficDirection::pull, n, m, 3, 1));
  else
    t.schedules.push_back(twoshot_schedule("vLLM two-stage (load shards, barrier, load reduced shards)",
                                           TrafficDirection::pull, TrafficDirection::pull, n, m / n, m / n, 5, 1));
  return t;
}

Traffic flashinfer_fused_traffic(const TrafficQuery& q) {
  Traffic t;
  if (one_rank(q, &t)) return t;
  const int n = q.c.world;
  const double m = double(q.c.bytes);
  const bool one = q.config == "oneshot" ||
                   (q.config != "twoshot" &&
                    fusion_shot(n, q.c.tokens, q.c.hidden, int(dtype_size(q.c.dtype))) == FusionShot::oneshot);
  if (one)
    t.schedules.push_back(
        oneshot_schedule("FlashInfer fused one-shot (Lamport: every rank's rows into every peer)", TrafficDirection::push,
                         n, m, 1, 1));
  else
    t.schedules.push_back(twoshot_schedule("FlashInfer fused two-shot (shards pushed to owners, reduced shards back)",
                                           TrafficDirection::push, TrafficDirection::push, n, m / n, m / n, 3, 1));
  return t;
}

}  // namespace arbench
