// CaseResult: what one case produced (or why it failed), as reports need it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/case.hpp"
#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"
#include "results/phase_timeline.hpp"
#include "results/device_state.hpp"
#include "results/stats/noise.hpp"
#include "results/stats/stats.hpp"

namespace arbench {

// One phase of a case's floor: its bytes on the busiest path over the rate measured there under
// the phase's pattern.
struct SolPhase {
  std::string what;     // the phase, as the variant's traffic says it
  std::string pattern;  // the probed pattern that priced it: "w8 all-pairs pull"
  double busiest_bytes = 0;  // bytes (x steps) of the flow that takes longest
  double gbps = 0;           // that flow's rate under the pattern
  std::string mover;         // "SM" or "copy engine": which gave that rate
  double transfer_us = 0;
  double waits = 0;   // the op's waits this phase pays
  double hop_us = 0;  // each at the hop of this phase's own pattern (idle; 0 where none was measured: notes)
};

// The speed-of-light floor of a case (bench/sol/; docs/method.md, "The floor of a case"):
//   sol_us = latency_us + transfer_us; latency_us = the sum over phases of waits x the phase's hop;
//   transfer_us = the phases' transfer_us added (pipelined: the slowest phase's alone)
// the lowest over the schedules the variant may run (NCCL: its algorithms and protocols).
struct SolFloor {
  double sol_us = 0;
  double hop_us = 0;        // latency_us / round_trips: the mean hop a wait was priced at (per phase: phases)
  double latency_us = 0;    // the waits, each at its phase's hop
  bool pipelined = false;   // the phases overlap pack by pack: transfer_us is the slowest phase's
  double round_trips = 0;   // waits per op
  std::string round_trips_source;  // the kernel's count (round-trip table) or the schedule's
  double transfer_us = 0;
  std::string schedule;     // which of the variant's schedules gave the floor
  std::vector<SolPhase> phases;
  std::string rates;        // where the rates came from (a topo file, a probe at start)
  std::string timing;       // "gpu", or "cpu": CPU threads on the host backend, CPU timing
  std::vector<std::string> notes;  // what the floor assumed (a flow the probe did not measure, ...)
};

// A case measured beside a background load (run --beside; docs/method.md, "Beside a model
// kernel"): its isolated latency with the load running, and the load's work per second alone and
// while the case's ops run back to back.
struct BesideFigures {
  std::string load;    // what ran beside: "compute" (FMA- and memory-bound kernels in turn), "fma", "memory"
  std::string timing;  // "gpu", or "cpu": CPU threads on the host backend, CPU timing
  std::vector<double> samples_us;  // the case's isolated samples with the load running
  Summary latency_us;
  double alone_per_s = -1;     // background work items finished per second, nothing else running
  double with_case_per_s = -1;  // the same while the case's ops run back to back
  double item_us = -1;          // one background item's time alone (the load's grain)
  // The background's slowdown: 1 - with_case / alone (0: unslowed, 0.25: a quarter of its work lost).
  double slowdown() const { return alone_per_s > 0 && with_case_per_s >= 0 ? 1.0 - with_case_per_s / alone_per_s : -1; }
};

struct CaseResult {
  Case c;
  bool ok = true;
  std::string reason;              // why the case failed (empty when ok)
  std::vector<double> samples_us;  // raw isolated-latency samples (max over ranks)
  Summary latency_us;
  MedianInterval median_ci_us;     // 95% CI of the median; its relative width is the noise
  std::string sampling_stop;       // fixed | noise | max_samples | max_time (measure/sampling.hpp)
  double sampling_time_s = 0;      // wall time spent taking the isolated samples
  double pipelined_us = -1;        // time per op, K ops back to back; < 0 = not measured
  double algbw_gbps = 0, busbw_gbps = 0;
  bool checked = false;            // correctness was checked (not --no-check)
  std::size_t wrong_elements = 0;
  double max_ulp_error = 0;        // allreduce_rmsnorm only
  // Low-precision (lossy) variants, e.g. FP8 on the wire: the error of the checked output against
  // the exact sum computed in double from the same inputs (docs/method.md, "Accuracy"). The
  // largest absolute error, and the root mean square of the error relative to the exact sum's
  // RMS. nullopt for exact variants (their output is checked bit for bit instead).
  std::optional<double> max_abs_err, rms_rel_err;
  // The start gate (docs/method.md): the median over kept samples of the time between the first
  // and the last rank's release; the harness floor of this world size (an empty op through the
  // same gate); samples dropped because the gate timed out. < 0: not measured.
  double start_skew_us = -1;
  double floor_us = -1;
  int discarded_samples = 0;
  // How the GPUs' clocks were put on one time line for the skew (method, the offsets' error
  // bound, their drift at the last re-measurement); nullopt when the fabric could not say.
  std::optional<ClockSync> clock_sync;
  // How the variant's data moved between the ranks (docs/method.md, "Data path"): e.g. "P2P
  // load/store", "NCCL P2P", "NCCL SHM (through host memory)"; empty when not known.
  std::string data_path;
  std::vector<std::pair<std::string, std::string>> settings;
  // The SMs one op takes from a model beside it (Variant::sms, docs/output.md "sms"); unknown
  // (ctas < 0) for a failed case and a variant that cannot say.
  SmUse sms;
  std::optional<BesideFigures> beside;  // run --beside
  // Where the case's symmetric memory came from on the cuda backend: `cuda` (arbench's own peer
  // mappings) or `nccl` (NCCL windows; docs/variants.md); empty elsewhere, and for plain `nccl`.
  std::string symm_mem;
  std::map<std::string, double> extra;  // further counters (fusion accounting, efficiency)
  std::optional<PhaseTimeline> phases;  // --phases or a skewed case, when the variant records marks
  std::optional<DeviceState> device;    // NVML snapshots around the timed samples (GPU runs)
  // The speed-of-light floor (bench/sol/), or why the case has none (sol_none; empty when the run
  // computes no floors at all).
  std::optional<SolFloor> sol;
  std::string sol_none;
};

// 100 x the floor / the median: how close the case came to its floor (100: at it); nullopt for a
// case without a floor or a time (failed).
inline std::optional<double> pct_of_sol(const CaseResult& r) {
  if (!r.ok || !r.sol || !(r.sol->sol_us > 0) || !(r.latency_us.median > 0)) return std::nullopt;
  return 100.0 * r.sol->sol_us / r.latency_us.median;
}

// A case faster than its floor: a timing error or a traffic pattern that is wrong, never a success.
inline bool below_floor(const CaseResult& r) {
  const auto pct = pct_of_sol(r);
  return pct && *pct > 100.0;
}

struct Skipped {
  Case c;
  std::string reason;
};

}  // namespace arbench
