// Fabric: N ranks and how they reach each other (docs/architecture.md).
//
// A fabric owns per-rank devices, streams, communicators and buffers. Kernels never see a
// Fabric: they get a PeerTable (plain pointers, by value). Kinds:
//   cuda        one rank per GPU, NCCL communicator, symmetric memory from NCCL's window API
//   single_gpu  N virtual ranks on one GPU (plain device allocations), for one-GPU machines
//   host        N CPU threads; runs the host twins; timings are CPU timings (in a multi-process
//               run: one process per rank, peers through POSIX shared memory)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/core/steady_clock.hpp"

namespace arbench {

class World;           // arbench/world.hpp: the processes of a run
struct PeerAccess;     // arbench/core/peer_access.hpp: the functional peer-to-peer check
World& solo_world();   // the one-process World

enum class Backend : std::uint8_t { cuda, single_gpu, host };

constexpr std::string_view backend_name(Backend b) {
  switch (b) {
    case Backend::cuda: return "cuda";
    case Backend::single_gpu: return "single-gpu";
    case Backend::host: return "host";
  }
  return "?";
}

inline constexpr int kMaxRanks = 8;

// What a kernel or twin needs to reach its peers. Passed by value; every pointer is valid in
// the address space of `rank` (its device, or the host for the host fabric).
struct PeerTable {
  void* ptr[kMaxRanks] = {};  // ptr[p]: rank p's buffer as `rank` addresses it (ptr[rank]: own)
  int rank = 0;
  int world = 1;
};

// One buffer per rank. Symmetric buffers are also addressable by every peer (same size and
// layout on every rank); local ones only by their owner.
class RankBuffers {
 public:
  virtual ~RankBuffers() = default;
  virtual std::size_t bytes() const = 0;
  virtual bool symmetric() const = 0;
  virtual void* local(int rank) const = 0;
  // `peer`'s buffer as `rank` addresses it; only for symmetric buffers.
  virtual void* peer(int rank, int peer) const = 0;
  // Every buffer this one may stand for when an op reads it: itself, or (the harness's inputs held
  // twice, bench/workload/alternating.hpp) each input set. A peer kernel that needs its input
  // registered with every rank's pointer beforehand (vLLM's) registers each.
  virtual std::vector<const RankBuffers*> alternatives() const { return {this}; }
  PeerTable table(int rank, int world) const {
    PeerTable t;
    t.rank = rank;
    t.world = world;
    for (int p = 0; p < world; ++p) t.ptr[p] = symmetric() ? peer(rank, p) : nullptr;
    t.ptr[rank] = local(rank);
    return t;
  }
};

using Stream = void*;  // cudaStream_t on CUDA fabrics; nullptr on the host fabric
using RankFn = std::function<void(int rank, Stream stream)>;

// One op of every rank, in two phases. `launch` enqueues the op's collectives, `after` the work
// that consumes their output (may be empty). The NCCL fabric runs every rank's `launch` inside
// one ncclGroupStart/End, and NCCL enqueues a grouped collective on its stream only at
// ncclGroupEnd: a kernel enqueued in `launch` after ncclAllReduce would run BEFORE the
// all-reduce it means to follow. Every fabric therefore runs all ranks' `launch`, ends the
// group, then runs all ranks' `after` (the host fabric: launch then after, per rank thread).
struct RankOp {
  RankFn launch;
  RankFn after;
  RankOp(RankFn l, RankFn a) : launch(std::move(l)), after(std::move(a)) {}
  // A one-phase op from any callable (a lambda, a RankFn).
  template <class F>
    requires std::is_invocable_v<F&, int, Stream>
  RankOp(F&& f) : launch(std::forward<F>(f)) {}  // implicit: ops are written inline, as lambdas
};

// What Fabric::time_isolated measured.
struct IsolatedTimes {
  std::vector<double> samples;     // seconds per kept sample: the op's time, maximum over ranks
  std::vector<double> start_skew;  // seconds per kept sample: last rank released minus first
  int discarded = 0;               // samples whose start gate timed out: ranks did not start together
};

enum class Placement : std::uint8_t { local, symmetric };

// How a fabric puts its ranks' clocks on one time line (docs/method.md, "Start skew"): the start
// skew and the phase marks of different GPUs are compared through these offsets.
struct ClockSync {
  std::string method;         // "one clock", "peer-to-peer ping-pong", "host-mapped ping-pong", "unknown"
  double error_bound_us = 0;  // the largest offset's error bound (a skew's error is at most twice it)
  double drift_us = -1;       // the largest offset change at the last re-measurement (< 0: none yet)
  double age_s = 0;           // seconds since the offsets were measured
};

class Fabric {
 public:
  virtual ~Fabric() = default;
  virtual Backend backend() const = 0;
  virtual int world() const = 0;
  // Whether this process drives `rank`: runs its ops, fills and reads its buffers. A
  // single-process fabric drives every rank; a multi-process one (one process per rank, under
  // mpirun) only its own, so code that loops over the ranks skips the others.
  virtual bool drives(int /*rank*/) const { return true; }
  // The processes the fabric spans: one (solo_world()) for single-process fabrics. Collectives
  // over them let the harness and the workloads agree on errors and gather results.
  virtual World& processes() const { return solo_world(); }
  // One line for banners: "8 GPUs (NCCL 2.28.9)", "4 virtual ranks on GPU 0", "8 CPU threads".
  virtual std::string describe() const = 0;

  // Empty when symmetric buffers can be allocated; else the reason (shown as a skip).
  virtual std::string symmetric_unsupported_reason() const { return {}; }
  // What the functional peer-to-peer check found when the fabric was built (every pair that
  // reports P2P moved a pattern through its mapping: kernels/fabric/host/peer_check/peer_check.hpp), or
  // nullptr when the fabric ran none (one GPU, no peer mapping). A broken pair also turns
  // symmetric memory off (symmetric_unsupported_reason) and the start gate's device barrier.
  virtual const PeerAccess* peer_access() const { return nullptr; }

  // Memory that follows the PCIe tree (the island variants, docs/variants.md): it works where
  // symmetric memory does not, on a box whose islands lack P2P between them.
  // Empty when alloc_island and alloc_host_mapped work; else why not (shown as a skip).
  virtual std::string island_memory_unsupported_reason() const {
    return "this fabric has no island memory (the island variants need one process driving every rank: run them "
           "without mpirun)";
  }
  // Whether `rank` can load from and store to `peer`'s island buffers directly (P2P); a rank
  // always reaches itself.
  virtual bool reaches(int rank, int peer) const { return rank == peer; }
  // Device memory per rank, zero-filled; peer(r, p) is p's buffer as r addresses it where
  // reaches(r, p), and throws CaseError for the other pairs.
  virtual std::unique_ptr<RankBuffers> alloc_island(std::size_t bytes);
  // Pinned host memory per rank, zero-filled, mapped into every rank's device: peer(r, p) is p's
  // buffer as r addresses it, for every pair (the cross-island path of pairs without P2P).
  virtual std::unique_ptr<RankBuffers> alloc_host_mapped(std::size_t bytes);
  // Zero-filled buffers; throws EnvironmentError when `placement` is unsupported.
  virtual std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) = 0;
  // Makes room in the fabric's symmetric memory for buffers of `bytes` per rank together (the
  // sweep's largest case), so that the cases slice one arena instead of mapping memory each
  // (kernels/fabric/peer/symm_arena.hpp). A hint: without it the arena grows when a case needs
  // more. Collective across processes. Fabrics without an arena ignore it.
  virtual void reserve_symmetric(std::size_t /*bytes*/) {}
  virtual void upload(int rank, void* dst, const void* src, std::size_t bytes) = 0;
  virtual void download(int rank, void* dst, const void* src, std::size_t bytes) = 0;

  // Runs one op on every rank and waits (bounded) for all to finish; throws HangError when the
  // ranks are still running after the bound (2 x timeout_s()).
  virtual void run(const RankOp& op) = 0;
  // `samples` gated samples of one op each. The gate releases all ranks together; a sample whose
  // gate gave up (a rank was released alone, after the timeout) is discarded and counted.
  virtual IsolatedTimes time_isolated(const RankOp& op, int samples) = 0;
  // --cache cold: evict the caches the next op would find warm, outside any timed region
  // (GPU fabrics: write a buffer twice the L2 size on every device the process drives; host:
  // every rank's thread or process writes its share of a buffer twice the last-level cache).
  // Returns when done.
  virtual void flush_caches() {}
  // `ops` ops back to back (a CUDA graph on GPU fabrics), repeated `reps` times;
  // returns the median time per op in seconds.
  virtual double time_pipelined(const RankOp& op, int ops, int reps) = 0;

  // Arrival skew (--skew): enqueue on `rank`'s stream, before its op, a hold of `seconds`
  // (the host fabrics spin on the steady clock; GPU fabrics launch a %globaltimer spin kernel).
  virtual void hold(int /*rank*/, Stream /*stream*/, double seconds) {
    spin_for_ns(static_cast<std::uint64_t>(seconds * 1e9));
  }
  // The clock the ops' phase marks use (docs/latency-breakdown.md) and its resolution in ns,
  // measured: the smallest step two marks can tell apart.
  virtual std::string phase_clock() const { return "steady_clock"; }
  virtual double phase_clock_resolution_ns() { return steady_resolution_ns(); }
  // `rank`'s phase clock minus the first rank's, in ns, to put every rank's marks on one time
  // line; nullopt when not known (the marks of different ranks are then not comparable exactly).
  // The host fabrics' ranks share one clock.
  virtual std::optional<std::int64_t> phase_clock_offset_ns(int /*rank*/) const { return 0; }
  // How those offsets were measured, their error bound and drift; nullopt when unknown.
  virtual std::optional<ClockSync> clock_sync() const { return ClockSync{"one clock (steady_clock)", 0, -1, 0}; }

  // Bound for any single wait, in seconds (spin-waits in kernels and twins, stream syncs).
  virtual double timeout_s() const { return 10.0; }
  // The NCCL communicator of `rank` (ncclComm_t), or nullptr when the fabric has none.
  virtual void* nccl_comm(int /*rank*/) const { return nullptr; }
  // CUDA device ordinal of `rank`, or -1 on the host fabric.
  virtual int device_of(int /*rank*/) const { return -1; }
  // How many ranks share one device (single_gpu: world). Kernels whose ranks wait on each
  // other must fit all sharing ranks' blocks on the device at once: divide the SMs by this.
  virtual int ranks_per_device() const { return 1; }

  // After a hang (HangError): stops what is still in flight (NCCL: ncclCommAbort, which also ends
  // NCCL kernels waiting for a lost peer), so the fabric can be dropped without waiting on work
  // that will never finish. The fabric is unusable afterwards.
  virtual void abort() {}
  // Empty when the devices can run the next case; else why not (a sticky CUDA error: the context
  // is lost until the process exits, so the run must stop).
  virtual std::string health() const { return {}; }
  // Empty while this fabric may run the next case; else why it must be discarded and replaced
  // (a grouped NCCL setup call failed: NCCL keeps the calls of the ranks that went in queued in
  // their communicators, and the next group would run them on those communicators only, which
  // hangs). The harness aborts and drops such a fabric after the case, whatever its outcome.
  virtual std::string unusable_reason() const { return {}; }
};

inline std::unique_ptr<RankBuffers> Fabric::alloc_island(std::size_t) {
  throw EnvironmentError("island memory unavailable: " + island_memory_unsupported_reason());
}
inline std::unique_ptr<RankBuffers> Fabric::alloc_host_mapped(std::size_t) {
  throw EnvironmentError("host-mapped memory unavailable: " + island_memory_unsupported_reason());
}

}  // namespace arbench
