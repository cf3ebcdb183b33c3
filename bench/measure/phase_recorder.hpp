// Recording a case's phase timeline (docs/latency-breakdown.md): after the timed samples, a few
// more gated ops run with the variant's phase marks on, one at a time, and every rank's record is
// read back after each. The timed samples never record (the variants' record pointer is null).
#pragma once

#include <optional>

#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"
#include "results/phase_timeline.hpp"

namespace arbench {

inline constexpr int kPhaseOps = 5;  // recorded ops per case; the report shows the median one

// The timeline of `ops` recorded ops of `op` (variant `v` on `f`); nullopt when `v` records no
// marks. Throws CaseError when a rank recorded nothing; the caller collects the ops' own errors.
// `cold_cache` (--cache cold): the caches are flushed before every recorded op, as before every
// timed sample, so the timeline shows the op the timed samples measured.
std::optional<PhaseTimeline> record_phase_timeline(Variant& v, Fabric& f, const RankOp& op, bool cold_cache = false,
                                                   int ops = kPhaseOps);

}  // namespace arbench
