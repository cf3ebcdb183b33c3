// Variant: one all-reduce (or fused all-reduce + RMSNorm) implementation, and the registry
// that lists them. Adding a variant is one file plus one registration line
// (kernels/register_cuda.cu for GPU fabrics, kernels/register_host.cpp for host twins).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/case.hpp"
#include "arbench/core/phases.hpp"
#include "arbench/fabric.hpp"
#include "arbench/traffic.hpp"

namespace arbench {

// ok, or a human reason why not (shown as a skip, never a crash).
struct Support {
  bool ok = true;
  std::string reason;
  static Support yes() { return {}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
};

// Buffers the harness owns, fills with oracle inputs and checks afterwards.
// Every pointer may be null when the family does not use it.
struct OpBuffers {
  RankBuffers* in = nullptr;            // allreduce input / fused: x (the partial sums)
  RankBuffers* out = nullptr;           // allreduce output (== in when in-place)
  RankBuffers* residual = nullptr;      // fused: residual input
  RankBuffers* weight = nullptr;        // fused: RMSNorm weight (same on every rank)
  RankBuffers* norm_out = nullptr;      // fused: y
  RankBuffers* residual_out = nullptr;  // fused: r = sum + residual
};

// vLLM sizes FlashInfer's PCIe-IPC workspace for its largest CUDA-graph capture size x the model's
// hidden size (flashinfer_pcie_ipc_all_reduce.py, setup()): 512 tokens x 8192 x bf16 here, a
// common default batch of a large model; --peer-workspace sets the user's.
inline constexpr std::size_t kDefaultPeerWorkspaceBytes = std::size_t(512) * 8192 * 2;

// Experiment knobs from the command line; 0 / empty = the variant's own policy.
struct Tuning {
  int blocks = 0;
  std::size_t ring_chunk = 0;
  int ring_channels = 0;
  std::vector<int> ring_order;
  // Per world size, the ring order that follows the PCIe tree (fewest switch and socket
  // crossings), filled by `arbench run` on the cuda backend; used when ring_order is empty.
  std::map<int, std::vector<int>> topology_ring_orders;
  // Per world size, the island of every rank (the island variants; bench/islands/): from
  // --islands, else the PCIe tree on the cuda backend, else two halves (host, single-gpu). A world
  // size absent here, or whose ranks form one island, runs no island variant.
  std::map<int, std::vector<int>> islands;
  // Per world size, the copy-engine rate of one flow in GB/s (the fastest flow of the pattern rates
  // measured at that world: --links FILE or the probe at start; bench/run/run_sol.hpp), which sets
  // the copy-engine variants' default chunk (algo/ce/ce_policy.hpp). Absent: their fixed default.
  std::map<int, double> copy_engine_gbps;
  double eps = 1e-6;
  // Host twins: 0 runs each rank's blocks one after another on one thread (fast); T >= 1 runs
  // every block as T threads, all blocks at once, with real block barriers (kernels/twin_grid.hpp).
  int host_threads = 0;
  // `nccl[tuned]`: the tuner table arbench's NCCL plugin applies (--tuner-table, an absolute path).
  std::string nccl_tuner_table;
  // --peer-workspace: the largest all-reduce a peer's workspace is sized for, as an engine sizes it
  // for its largest batch (FlashInfer's PCIe-IPC max_numel; docs/variants.md, "Peers").
  std::size_t peer_workspace_bytes = kDefaultPeerWorkspaceBytes;
};

// How a variant's data moves between ranks, recorded per case (docs/method.md, "Data path"):
// arbench's own kernels load and store through peer mappings; NCCL moves it over the transport
// NCCL picks per pair (P2P, or host memory: NCCL's default NCCL_P2P_LEVEL is PXB).
enum class DataMover : std::uint8_t { peer_load_store, nccl };

// The SMs one op takes from a model running beside it (docs/output.md, "sms"): the CTAs one rank
// keeps resident on its GPU at the op's widest (its largest grid, never more than one CTA per SM
// by the launch policies, so CTAs = SMs), per rank: per GPU with one rank per GPU, per virtual
// rank on single-gpu. `ctas` < 0: unknown (NCCL picks its channels per call), `basis` says why.
struct SmUse {
  int ctas = -1;
  std::string basis;  // how the figure was got: kSmsGrid, kSmsModelled, or the variant's own words
  bool known() const { return ctas >= 0; }
};
// The launch's own grid, as the variant launched it.
inline constexpr const char* kSmsGrid = "grid";
// The host backend: no GPU launch, so the grid the CUDA launch policy would give on a device of
// kSmsModelDeviceSms SMs (the target's RTX PRO 6000 Blackwell) with one rank per GPU.
inline constexpr const char* kSmsModelled = "modelled: the CUDA launch policy's grid on 188 SMs";
inline constexpr int kSmsModelDeviceSms = 188;

class Variant {
 public:
  virtual ~Variant() = default;
  virtual Support supports(const Case& c, const Fabric& f) const = 0;
  // supports() for variants whose support depends on the run's knobs too (the island variants
  // need two islands in Tuning::islands); what the harness asks.
  virtual Support supports_with(const Case& c, const Fabric& f, const Tuning& /*t*/) const { return supports(c, f); }
  // Bytes prepare() will allocate per rank beyond the workload's buffers (scratch, state), so a
  // sweep that cannot fit is refused before it starts; may round up, never down.
  virtual std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& f, const Tuning& t) const {
    (void)c, (void)f, (void)t;
    return 0;
  }
  // Allocate scratch, record pointers; called once per case before any launch. Runs no ops: in a
  // run of several processes the harness agrees on prepare()'s errors, and an op is a collective
  // that a process whose prepare() failed would never join.
  virtual void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) = 0;
  // Ops the variant runs before the case's own (e.g. the unfused variants timing their two halves
  // alone), called once every process's prepare() worked. The fabric's ops agree on their own
  // errors; the harness agrees on the rest.
  virtual void prepare_ops(Fabric& /*f*/) {}
  // Enqueue one op of `rank` on `stream` (host fabric: run it on the calling thread). On the
  // NCCL fabric this runs inside the op's ncclGroupStart/End: a collective called here is
  // enqueued only when the group ends, after anything else launch() enqueues.
  virtual void launch(int rank, Stream stream) = 0;
  // The part of one op that consumes a collective's output (e.g. unfused-nccl's norm kernel),
  // enqueued on `stream` after every rank's launch() and the end of the NCCL group (RankOp).
  // Every variant that chains work after a collective puts that work here.
  virtual void launch_after(int /*rank*/, Stream /*stream*/) {}
  // Throws CaseError naming rank/block/flag when an op recorded a timeout since prepare().
  virtual void check_errors() {}
  // Phase timeline (docs/latency-breakdown.md): the marks one op records, in the order a block
  // reaches them; empty when the variant records none.
  virtual std::vector<PhaseMark> phase_marks() const { return {}; }
  // The ops after this call record their marks into `rec` (rank r: rec->local(r), a record of
  // kPhaseRecordBytes, arbench/core/phases.hpp); nullptr: record nothing (the default).
  virtual void record_phases(RankBuffers* /*rec*/) {}
  // Settings worth recording in the JSON (e.g. NCCL_ALGO), as key/value text.
  virtual std::vector<std::pair<std::string, std::string>> settings() const { return {}; }
  // Where the harness puts OpBuffers: symmetric (peers read/write them) or plain local
  // memory (e.g. plain `nccl`, so NCCL does not switch to its symmetric kernels).
  virtual Placement buffer_placement() const { return Placement::symmetric; }
  // Environment the fabric must be created with (NCCL reads NCCL_ALGO/NCCL_PROTO at
  // communicator creation): variants with different envs get different fabrics.
  virtual std::map<std::string, std::string> fabric_env() const { return {}; }
  // The SMs one op takes (SmUse), known after prepare(): computed from the launch configuration
  // prepare() chose (the same function the launch uses). Unknown by default.
  virtual SmUse sms(const Case& /*c*/, const Fabric& /*f*/) const { return {-1, "unknown: the variant does not say"}; }
  // How this variant's data moves between ranks (the NCCL variants, and unfused-nccl: nccl).
  virtual DataMover data_mover() const { return DataMover::peer_load_store; }
  // Exact variants are checked bit for bit against the oracle sum; a lossy one (FP8 on the wire)
  // is checked against the exact sum within its documented error bound, and its error figures
  // are reported per case (CaseResult::max_abs_err, rms_rel_err).
  virtual bool lossy() const { return false; }
  // Whether the check tells +0.0 from -0.0 (exact variants: bit for bit). FlashInfer's PCIe-IPC
  // kernels use +0.0 as their "not yet written" sentinel and send a real +0.0 as -0.0, so a zero sum
  // may arrive as -0.0: their outputs are checked with the two zeros equal, every other element
  // still bit for bit (a stale or unwritten element is still wrong: docs/variants.md, "Peers").
  virtual bool signed_zeros() const { return true; }
  // A lossy variant's model for that bound: how many times a value is quantized on its way
  // (oneshot-fp8 1, twoshot-fp8 2: docs/variants.md, "FP8 on the wire").
  virtual int wire_quantizations() const { return lossy() ? 1 : 0; }
  // Whether the variant runs on NCCL's communicators (those whose data NCCL moves): on the cuda
  // backend it always gets the NCCL fabric. The others, the custom kernels, get the fabric of
  // their symmetric-memory provider (--symm-mem; docs/variants.md).
  virtual bool needs_nccl() const { return data_mover() == DataMover::nccl; }
  // The same for one case with the run's tuning (the harness asks this one): `nccl[tuned]`'s
  // environment names --tuner-table.
  virtual std::map<std::string, std::string> fabric_env(const Case& c, const Tuning& t) const {
    (void)c, (void)t;
    return fabric_env();
  }
};

// One op of `v` in both phases, as the fabrics run it.
inline RankOp op_of(Variant& v) {
  return RankOp([&v](int rank, Stream s) { v.launch(rank, s); }, [&v](int rank, Stream s) { v.launch_after(rank, s); });
}

using VariantFactory = std::function<std::unique_ptr<Variant>()>;

struct VariantEntry {
  std::string name;
  Family family = Family::allreduce;
  std::string summary;        // one line for `arbench list` and README
  VariantFactory gpu;         // cuda and single_gpu fabrics; empty when unavailable
  VariantFactory host;        // host fabric (the host twin); empty when unavailable
  std::string no_gpu_reason;  // why `gpu` is empty
  std::string no_host_reason;
  // A low-precision variant (Variant::lossy(), FP8 on the wire): run only when asked for by name
  // or by a pattern that says fp8, never in the default sweep.
  bool lossy = false;
  // What its schedule moves between ranks for a case (arbench/traffic.hpp), priced by the
  // speed-of-light floor (bench/sol/). Every variant has one (`Registry.EveryVariantHasATraffic`).
  TrafficFn traffic = nullptr;
  // Named configurations, run as `name[config]` (e.g. `nccl[ring/ll]`), GPU fabrics only.
  std::vector<std::string> configs;
  std::function<std::unique_ptr<Variant>(const std::string& config)> make_configured;
  // Further configurations accepted by name without being listed (`nccl[ring/ll/ch:4]`), and a
  // catalogue line for a listed one (empty: "`name` with algorithm/protocol <config> forced").
  std::function<bool(const std::string& config)> accepts_config;
  std::function<std::string(const std::string& config)> config_summary;
  // A peer (another project's kernel built from the user's copy, docs/variants.md "Peers"): whose
  // code it is ("" for arbench's own variants). A peer not built into this arbench keeps its entry
  // and configurations, with empty factories and the reason in no_gpu_reason.
  // Whether an engine runs it at a world size: arbench/core/peer_dispatch.hpp, by name.
  std::string peer;
};

// One line of `arbench list`'s variant catalogue.
struct VariantInfo {
  std::string name;         // what --variants takes, e.g. `oneshot-pull` or `nccl[ring/ll]`
  Family family = Family::allreduce;
  std::string summary;
  bool named_only = false;  // a configuration: never in the default sweep, selected by full name
  std::string unavailable;  // why it cannot run on the backend asked about (empty when it can)
};

class Registry {
 public:
  void add(VariantEntry e);
  const std::vector<VariantEntry>& entries() const { return entries_; }
  const VariantEntry* find(const std::string& name) const;
  // Why `name` cannot run on `backend` (empty when it can).
  std::string unavailable_reason(const std::string& name, Backend backend) const;
  std::unique_ptr<Variant> make(const std::string& name, Backend backend) const;
  // Every variant and configuration, in registration order, with its availability on `backend`.
  std::vector<VariantInfo> catalogue(Backend backend) const;
  // The registry with every built-in variant (host twins and GPU kernels).
  static const Registry& builtin();

 private:
  std::vector<VariantEntry> entries_;
};

// Registration hooks, one per library (kernels/register_host.cpp, kernels/register_cuda.cu).
void register_host_variants(Registry& r);
void register_gpu_variants(Registry& r);

}  // namespace arbench
