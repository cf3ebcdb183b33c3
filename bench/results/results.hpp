// CaseResult: what one case produced (or why it failed), as reports need it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/case.hpp"
#include "arbench/fabric.hpp"
#include "results/phase_timeline.hpp"
#include "results/device_state.hpp"
#include "results/stats/noise.hpp"
#include "results/stats/stats.hpp"

namespace arbench {

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
  // Where the case's symmetric memory came from on the cuda backend: `cuda` (arbench's own peer
  // mappings) or `nccl` (NCCL windows; docs/variants.md); empty elsewhere, and for plain `nccl`.
  std::string symm_mem;
  std::map<std::string, double> extra;  // further counters (fusion accounting, efficiency)
  std::optional<PhaseTimeline> phases;  // --phases or a skewed case, when the variant records marks
  std::optional<DeviceState> device;    // NVML snapshots around the timed samples (GPU runs)
};

struct Skipped {
  Case c;
  std::string reason;
};

}  // namespace arbench
