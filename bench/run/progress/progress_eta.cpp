#include "run/progress/progress_eta.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace arbench {
namespace {
constexpr double kPriorFloorBytes = 64.0 * 1024;  // the prior: b = a / 64 KiB
constexpr double kPriorWorldExponent = 0.5;
}

EtaModel::EtaModel(std::vector<PlannedCase> plan) : plan_(std::move(plan)) {}

void EtaModel::finished(std::size_t index, double seconds) {
  if (index >= plan_.size() || !(seconds > 0) || !std::isfinite(seconds)) return;
  done_.push_back(index);
  t_.push_back(seconds);
  fit();
}

double EtaModel::scale(const PlannedCase& c, double k) {
  return double(std::max(c.samples, 1)) * std::pow(double(std::max(c.world, 1)), k);
}

// Least squares on relative errors (weights 1/t^2): a fast case counts as much as a slow one, so
// the floor is learnt from the small cases and the per-byte cost from the large ones. Returns the
// residual; a and b through the references.
double EtaModel::fit_ab(double k, double& a, double& b) const {
  std::set<std::size_t> sizes;
  double s11 = 0, s12 = 0, s22 = 0, s1t = 0, s2t = 0, p11 = 0, p1t = 0;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    const PlannedCase& c = plan_[done_[i]];
    sizes.insert(c.bytes);
    const double w = 1 / (t_[i] * t_[i]), x1 = scale(c, k), x2 = x1 * double(c.bytes);
    const double xp = x1 + x2 / kPriorFloorBytes;  // the prior's one feature: t = a * (x1 + x2 / 64K)
    s11 += w * x1 * x1;
    s12 += w * x1 * x2;
    s22 += w * x2 * x2;
    s1t += w * x1 * t_[i];
    s2t += w * x2 * t_[i];
    p11 += w * xp * xp;
    p1t += w * xp * t_[i];
  }
  const double det = s11 * s22 - s12 * s12;
  if (sizes.size() < 2 || !(det > 1e-12 * s11 * s22)) {
    a = p1t / p11;
    b = a / kPriorFloorBytes;
  } else {
    a = (s1t * s22 - s2t * s12) / det;
    b = (s2t * s11 - s1t * s12) / det;
    if (a < 0) {  // bandwidth alone
      a = 0;
      b = s2t / s22;
    } else if (b < 0) {  // the floor alone
      b = 0;
      a = s1t / s11;
    }
  }
  double residual = 0;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    const PlannedCase& c = plan_[done_[i]];
    const double r = (scale(c, k) * (a + b * double(c.bytes)) - t_[i]) / t_[i];
    residual += r * r;
  }
  return residual;
}

// How the time grows with the ranks (t ~ N^k): from the data once two world sizes have finished
// (k in 0..1: 0 for GPUs that run their ranks in parallel, 1 for CPU threads sharing few cores),
// else k = 0.5, within 2x of both ends from 2 to 8 ranks.
void EtaModel::fit() {
  std::set<int> worlds;
  for (std::size_t i : done_) worlds.insert(plan_[i].world);
  if (worlds.size() < 2) {
    k_ = kPriorWorldExponent;
    fit_ab(k_, a_, b_);
    return;
  }
  double best = -1;
  for (int step = 0; step <= 10; ++step) {
    double a = 0, b = 0;
    const double k = step / 10.0, residual = fit_ab(k, a, b);
    if (best < 0 || residual < best) {
      best = residual;
      k_ = k;
      a_ = a;
      b_ = b;
    }
  }
}

double EtaModel::case_s(std::size_t index) const {
  if (a_ < 0 || index >= plan_.size()) return -1;
  const PlannedCase& c = plan_[index];
  return scale(c, k_) * (a_ + b_ * double(c.bytes));
}

double EtaModel::remaining_s(std::size_t next, bool running, double running_s) const {
  if (a_ < 0) return -1;
  double left = 0;
  for (std::size_t i = next; i < plan_.size(); ++i) left += case_s(i);
  if (running && next > 0) left += std::max(0.0, case_s(next - 1) - running_s);
  return left;
}

}  // namespace arbench
