// The progress line's ETA: what the cases left will cost, modelled per case instead of a running
// mean. A sweep runs its cases smallest first, so the mean of the finished ones (small, fast)
// times the cases left was 4-10x too low late in a sweep. Each case's time is modelled as
//   t = s * w * (a + b * bytes)     s: samples (+ warm-up), w: ranks, bytes: the message
// (a: the per-sample floor of one rank, b: its per-byte cost), a and b fitted by least squares
// (never negative) to the cases finished so far. Until two sizes have finished, b comes from a
// prior: the floor equals 64 KiB of bytes (the size where small messages stop being latency-bound).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace arbench {

// One case of the sweep as the ETA sees it.
struct PlannedCase {
  std::string name, family;
  std::size_t bytes = 0;
  int world = 1;
  int samples = 1;  // timed samples + warm-up (the upper bound under adaptive sampling)
};

class EtaModel {
 public:
  explicit EtaModel(std::vector<PlannedCase> plan);
  // Case `index` of the plan took `seconds`.
  void finished(std::size_t index, double seconds);
  // Seconds left for the cases from `next` on; `running_s` of case next-1 already spent when it
  // is still running (`running` true). Negative when nothing is known yet (no case finished).
  double remaining_s(std::size_t next, bool running, double running_s) const;
  // The modelled seconds of case `index` (negative before the first case finished).
  double case_s(std::size_t index) const;

 private:
  static double scale(const PlannedCase& c, double k);
  double fit_ab(double k, double& a, double& b) const;
  void fit();
  std::vector<PlannedCase> plan_;
  std::vector<std::size_t> done_;  // the finished cases' indices
  std::vector<double> t_;          // and their seconds
  double a_ = -1, b_ = 0, k_ = 0.5;
};

}  // namespace arbench
