// What the peers move between ranks (arbench/traffic.hpp), M bytes of message on N ranks, from
// their kernels as read in FlashInfer at commit fb28d7242b35 (include/flashinfer/comm/
// pcie_ipc_all_reduce.cuh: its kernel selection table and each kernel's comment;
// flashinfer/comm/pcie_ipc_policy.py: the barriers each schedule pays; trtllm_allreduce_fusion.cuh)
// and vLLM's csrc/custom_all_reduce.cuh (cross_device_reduce_1stage, _2stage). As the peer picks,
// the schedule follows its choice (peer_policy.hpp); a configuration forces it. The waits below are
// written from that reading. In a peers build they are priced from the count of the kernel's own
// PTX instead (scripts/peer_waits.py: the flag waits one thread passes) plus the data waves the
// code shows (a pull's loads: the PTX cannot tell a peer's load from a local one); every floor of
// a peer says which (TrafficSchedule::waits_source).
//   flashinfer-pcie-ipc  2 ranks: each pushes M to the other (ipc_tp2_remote_push_kernel); waits:
//                        one sentinel poll.
//                        4, unstaged: one-shot push of M to every peer (push_oneshot_param_kernel).
//                        4 staged, 8 flat-staged: reduce-scatter then all-gather, every rank
//                        pushing its shards to every peer at once (ipc_rsag_push_param_kernel);
//                        waits: two barriers, one after each half's pushes.
//                        4 staged-ring: the same bytes in N-1 passes per phase, in pass p every rank
//                        pushing to rank + 1 + p only (ipc_rsag_ring_push_param_kernel): priced
//                        as a ring (one outbound and one inbound stream per GPU at a time); a
//                        barrier per pass, 2(N-1).
//                        8 unstaged, staged, staged-ring: the 4+4 island decomposition (ranks 0-3
//                        and 4-7, whatever the box's islands): reduce-scatter inside each island,
//                        the owners' shards exchanged across with the partner rank (r +- 4), then
//                        all-gather inside (ipc_topo_rsag8_*). Unstaged: every pack pushed three
//                        times in a row, each push waiting on the last one's sentinel, no barrier:
//                        pipelined, one wait per phase. Staged: island barriers around each inside
//                        phase and the owner pair's rendezvous across (2 + 1 + 2); staged-ring: three
//                        passes per inside phase, six island barriers more (5 + 1 + 5).
//   vllm-custom          1stage: barrier, every rank loads M from every peer, barrier (3 waits);
//                        2stage: barrier, every rank loads its shard from every peer, barrier,
//                        every rank loads every owner's reduced shard; no closing barrier (2 + 2).
//   flashinfer-fused     oneshot: every rank stores its rows into every peer's Lamport buffer (one
//                        poll wave); twoshot: every rank loads its shard of every rank's rows (a
//                        pull, after a barrier: 2 waits) and stores the sum into every rank (a
//                        push, then a barrier: 1). The norm is local.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "arbench/traffic_schedules.hpp"
#include "kernels/peers/peer_policy.hpp"
#include "kernels/peers/peer_traffic.hpp"

namespace arbench {
namespace {

constexpr const char* kWrittenWaits =
    "written from the peer's code as read (FlashInfer fb28d7242b35, vLLM custom_all_reduce.cuh), not counted from "
    "its PTX (no peers build)";

// A schedule's waits, by the kernel it runs (`key`, as scripts/peer_waits.py names it) and the data
// waves its code has (`data_waves`: a pull's loads, one wave per phase that loads): the PTX count
// plus those where this build counted the kernel, else the written ones. A count differing from
// the written chain changes the phases' waits from the last phase back (a count lower than the
// written chain: the chain runs across threads, which one thread's count cannot see).
TrafficSchedule priced(TrafficSchedule s, const std::string& key, int data_waves, const PeerWaitCounts& counted) {
  const auto it = counted.find(key);
  if (it == counted.end()) {
    s.waits_source = kWrittenWaits;
    return s;
  }
  const int written = s.round_trips;
  const int total = it->second + data_waves;
  s.waits_source = "counted in the peer's PTX (" + key + ": " + std::to_string(it->second) +
                   " flag wait(s) one thread passes, scripts/peer_waits.py) + " + std::to_string(data_waves) +
                   " data wave(s) from its code; written from the code: " + std::to_string(written);
  s.round_trips = total;
  int excess = written - total;  // > 0: take off the last phases; < 0: add to the last
  for (auto p = s.phases.rbegin(); p != s.phases.rend() && excess != 0; ++p) {
    const int change = excess > 0 ? std::min(excess, p->waits) : excess;
    p->waits -= change;
    excess -= change;
  }
  return s;
}

TrafficPhase with_waits(TrafficPhase p, int waits) {
  p.waits = waits;
  return p;
}

// The 8-rank topology kernels: reduce-scatter inside ranks 0-3 and 4-7, the owner pairs across,
// all-gather inside; every transfer a push. `inside`, `across`: each phase's waits.
Traffic flashinfer_islands(const TrafficQuery& q, int inside, int across, bool pipelined, const std::string& key,
                           const PeerWaitCounts& counted) {
  Traffic t;
  t.island_of = {0, 0, 0, 0, 1, 1, 1, 1};
  const double shard = double(q.c.bytes) / 4;
  std::vector<TrafficFlow> pairs;
  for (int r = 0; r < 8; ++r) pairs.push_back({r, (r + 4) % 8, shard});
  TrafficSchedule s{
      std::string("FlashInfer PCIe-IPC 4+4 islands (reduce-scatter inside, owner pairs across, all-gather inside; "
                  "pushes") +
          (pipelined ? ", pipelined pack by pack)" : ")"),
      {with_waits(island_inside_phase("island reduce-scatter: every rank pushes each island peer's shard to it",
                                      TrafficDirection::push, t.island_of, shard),
                  inside),
       with_waits(island_across_phase("every owner pushes its island's reduced shard to its partner in the other island",
                                      TrafficDirection::push, std::move(pairs)),
                  across),
       with_waits(island_inside_phase("island all-gather: every owner pushes its reduced shard to every island peer",
                                      TrafficDirection::push, t.island_of, shard),
                  inside)},
      2 * inside + across,
      1};
  s.pipelined = pipelined;
  t.schedules.push_back(priced(std::move(s), key, 0, counted));
  return t;
}

PcieIpcSchedule pcie_ipc_schedule_of(const TrafficQuery& q) {
  for (int s = 0; s < 4; ++s)
    if (q.config == kPcieIpcScheduleNames[s]) return PcieIpcSchedule(s);
  return pcie_ipc_seed(q.c.world, q.c.bytes / dtype_size(q.c.dtype), int(dtype_size(q.c.dtype))).schedule;
}

}  // namespace

Traffic flashinfer_pcie_ipc_traffic_counted(const TrafficQuery& q, const PeerWaitCounts& counted) {
  const int n = q.c.world;
  const double m = double(q.c.bytes);
  const PcieIpcSchedule s = pcie_ipc_schedule_of(q);
  const std::string key = "flashinfer-pcie-ipc/" + std::to_string(n) +
                          (n == 2 ? "" : std::string("/") + kPcieIpcScheduleNames[int(s)]);
  if (n == 8 && s == PcieIpcSchedule::unstaged) return flashinfer_islands(q, 1, 1, true, key, counted);
  if (n == 8 && s != PcieIpcSchedule::flat_staged)
    return flashinfer_islands(q, s == PcieIpcSchedule::staged_ring ? 5 : 2, 1, false, key, counted);
  return one_schedule(q, [&] {  // every transfer a push: no data wave
    if (n == 2 || (n == 4 && s == PcieIpcSchedule::unstaged) || (n != 4 && n != 8))
      return priced(oneshot_schedule("FlashInfer PCIe-IPC one-shot push", TrafficDirection::push, n, m, 1, 1), key, 0,
                    counted);
    if (s == PcieIpcSchedule::staged_ring)
      return priced(ring_schedule("FlashInfer PCIe-IPC staged ring (N-1 permutation passes per phase)",
                                  ring_or_identity({}, n), m / n, 2 * (n - 1), 1),
                    key, 0, counted);
    return priced(twoshot_schedule("FlashInfer PCIe-IPC reduce-scatter + all-gather, every peer at once",
                                   {TrafficDirection::push, TrafficDirection::push, 1, 1}, n, m / n, m / n, 1),
                  key, 0, counted);
  });
}

Traffic vllm_custom_traffic_counted(const TrafficQuery& q, const PeerWaitCounts& counted) {
  const int n = q.c.world;
  const double m = double(q.c.bytes);
  const bool one = q.config == "1stage" || (q.config != "2stage" && vllm_stage(n, q.c.bytes) == VllmStage::one);
  const std::string key = "vllm-custom/" + std::to_string(n) + (one ? "/1stage" : "/2stage");
  return one_schedule(q, [&] {  // data waves: the loads of every peer (one stage), of shards then of sums (two)
    if (one)
      return priced(
          oneshot_schedule("vLLM one-stage (barrier, load every peer, barrier)", TrafficDirection::pull, n, m, 3, 1), key,
          1, counted);
    return priced(twoshot_schedule("vLLM two-stage (load shards, barrier, load reduced shards)", {}, n, m / n, m / n, 1),
                  key, 2, counted);
  });
}

// The kernel a case of flashinfer-fused runs: the one it recorded (`kernel`, flashinfer_fusion.cu),
// else the one its configuration forces or its rule picks (fusion_launch: plain and [vllm] as vLLM
// runs it, at the recorded capability); nullopt where that depends on a capability not known (a
// dry run: then both are priced and the floor is the lower).
static std::optional<FusionShot> fused_shot_of(const TrafficQuery& q) {
  if (const std::string* k = q.setting("kernel")) return parse_fusion_shot(*k);
  if (const auto forced = parse_fusion_shot(q.config)) return forced;
  const int elem = int(dtype_size(q.c.dtype));
  if (q.config == "flashinfer") return fusion_shot(q.c.world, q.c.tokens, q.c.hidden, elem);
  const std::string* cap = q.setting("capability");
  if (!cap) return std::nullopt;
  char* end = nullptr;
  const double major_minor = std::strtod(cap->c_str(), &end);  // "12.0"
  if (end == cap->c_str() || major_minor <= 0) return std::nullopt;
  const int cc = int(std::lround(major_minor * 10));
  const auto launch = fusion_launch(q.config, cc, q.c.world, q.c.tokens, q.c.hidden, elem);
  return launch ? std::optional<FusionShot>(launch->shot) : std::nullopt;
}

Traffic flashinfer_fused_traffic_counted(const TrafficQuery& q, const PeerWaitCounts& counted) {
  const int n = q.c.world;
  const double m = double(q.c.bytes);
  const std::string key = "flashinfer-fused/" + std::to_string(n);
  const auto oneshot = [&] {  // Lamport pushes: no data wave
    return priced(oneshot_schedule("FlashInfer fused one-shot (Lamport: every rank's rows into every peer)",
                                   TrafficDirection::push, n, m, 1, 1),
                  key + "/oneshot", 0, counted);
  };
  const auto twoshot = [&] {  // one data wave: the shards loaded from every rank
    return priced(twoshot_schedule("FlashInfer fused two-shot (shards loaded from every rank, sums stored into every rank)",
                                   {TrafficDirection::pull, TrafficDirection::push, 2, 1}, n, m / n, m / n, 1),
                  key + "/twoshot", 1, counted);
  };
  const std::optional<FusionShot> shot = fused_shot_of(q);
  if (shot) return one_schedule(q, *shot == FusionShot::oneshot ? std::function<TrafficSchedule()>(oneshot)
                                                                 : std::function<TrafficSchedule()>(twoshot));
  Traffic t;
  if (one_rank(q, &t)) return t;
  t.schedules = {oneshot(), twoshot()};
  return t;
}

}  // namespace arbench
