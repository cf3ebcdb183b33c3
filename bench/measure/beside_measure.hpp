// How a case is measured beside a background load (docs/method.md, "Beside a model kernel"):
//   1. the load starts; after a short settling time its work per second is counted over a window
//      with nothing else running (alone);
//   2. the case's isolated samples are taken again, the same sampling plan, with the load running
//      (its latency under load);
//   3. the case's ops run back to back (pipelined samples, one after another) for at least the
//      same window, and the load's work per second is counted over it (with the case);
//   4. the load stops.
// The background's slowdown is 1 - with_case / alone. The window is long against one item (tens
// of microseconds), so the count's grain is under 1%.
#pragma once

#include "arbench/fabric.hpp"
#include "measure/beside/beside_load.hpp"
#include "measure/sampling.hpp"
#include "results/results.hpp"

namespace arbench {

struct BesidePlan {
  SamplingPlan samples;       // the case's own plan (step 2)
  int pipelined_ops = 20;     // ops per pipelined sample (step 3)
  double window_s = 0.2;      // steps 1 and 3 count over at least this long
  double settle_s = 0.02;     // the load runs this long before step 1 counts
  int max_pipelined_samples = 10000;  // bound on step 3's samples (each is bounded by the fabric)
};

// Runs steps 1-4 on `f` with `op` (the case's op) and `load` (not yet started); the load is
// stopped on every path out. Collective on a fabric of several processes, like the samples.
BesideFigures measure_beside(Fabric& f, const RankOp& op, BesideLoad& load, const BesidePlan& plan, BesideKind kind);

}  // namespace arbench
