// `arbench run --dry-run`; see run_dry.hpp.
#include "run/dry/run_dry.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "arbench/core/errors.hpp"
#include "islands/island_spec.hpp"
#include "sol/floor.hpp"
#include "sol/pattern_rates.hpp"
#include "sol/round_trips.hpp"
#include "sweep/sweep.hpp"
#include "text/wrap.hpp"

namespace arbench {

std::string dry_run_problem(const RunConfig& cfg) {
  if (cfg.links_file.empty())
    return "--dry-run prices the cases on a saved links file's rates: give --links FILE (`arbench topo --out "
           "FILE.json` on the box, or a published box's file under results/reference/)";
  if (!cfg.sol) return "--dry-run prints each case's floor; --no-sol leaves nothing to print";
  if (!cfg.out_json.empty() || !cfg.out_csv.empty())
    return "--dry-run runs no case, so it writes no results: drop --out/--csv";
  if (!cfg.backend.empty() && cfg.backend != "cuda" && cfg.backend != "auto")
    return "--dry-run prices the cuda backend's cases (the links file's GPUs); --backend " + cfg.backend +
           " has no floor on them";
  return {};
}

int run_dry(RunConfig cfg, std::ostream& out, const Registry& reg, int arch) {
  if (const std::string why = dry_run_problem(cfg); !why.empty()) throw UsageError(why);
  const auto rates = sol::read_pattern_rates(cfg.links_file);
  if (!rates)
    throw UsageError("--links " + cfg.links_file + " has no \"patterns\" object (a file of `arbench topo "
                     "--no-measure` or from before arbench measured them): `arbench topo --out FILE.json` again");
  const int positions = int(rates->positions.size());
  for (int w : cfg.gpus)
    if (w > positions)
      throw UsageError("--gpus " + std::to_string(w) + ": " + cfg.links_file + " holds rates for " +
                       std::to_string(positions) + " GPUs; ask for at most that many");
  resolve_defaults(cfg, Backend::cuda, positions);
  std::vector<int> island_of;
  if (!cfg.islands.empty()) {
    island_of = islands::parse_islands(cfg.islands);
    for (int w : cfg.gpus) islands::check_covers(island_of, w, cfg.islands);
  }
  Sweep sweep = expand_sweep(cfg, reg, Backend::cuda);
  filter_sweep(sweep, cfg.filter);
  const sol::FloorInputs in{&*rates, {}, "file " + cfg.links_file};
  out << fit_line("# dry run: " + std::to_string(sweep.cases.size() + sweep.skipped.size()) + " cases priced on " +
                      cfg.links_file + "'s rates (GPUs 0..N-1 of its positions; round trips: the sm_" +
                      std::to_string(arch) + " table); nothing runs",
                  2);
  std::vector<std::string> notes;  // each once, at the end
  const auto price = [&](const Case& c, const std::string& skipped) {
    const VariantEntry* e = reg.find(c.variant);
    const std::string line = c.name() + (skipped.empty() ? "" : " (not run by this build: " + skipped + ")") + "  ";
    if (e == nullptr || e->traffic == nullptr) return fit_line(line + "no floor: the variant has no traffic pattern", 4);
    const TrafficQuery q{c, sol::variant_config(c.variant),
                         island_of.empty() ? std::vector<int>{} : islands::islands_of_world(island_of, c.world),
                         cfg.tuning.ring_order, {}};
    std::string why;
    const auto f = sol::traffic_floor(e->traffic(q), q, in, sol::kernel_round_trips(c.variant, c.world, c.dtype, arch),
                                      &why);
    if (!f) return fit_line(line + "no floor: " + why, 4);
    std::vector<std::string> case_notes = f->notes;
    // A peer's waits: counted in its PTX where this build compiled it, else written from its code.
    if (!e->peer.empty())
      case_notes.push_back(c.variant + " at " + std::to_string(c.world) + " GPUs: " +
                           std::to_string(int(f->round_trips)) + " waits, " + f->round_trips_source);
    for (const std::string& note : case_notes)
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    char figure[96];
    std::snprintf(figure, sizeof figure, "floor %.3f us (waits %.3f, transfer %.3f)", f->sol_us, f->latency_us,
                  f->transfer_us);
    return fit_line(line + figure + "  " + f->schedule, 4);
  };
  for (const Case& c : sweep.cases) out << price(c, "");
  for (const SkippedCase& s : sweep.skipped) out << price(s.c, s.reason);
  if (!notes.empty()) out << "notes (each once, on the cases above that carry it):\n";
  for (const std::string& note : notes) out << fit_line("  " + note, 4);
  return kExitOk;
}

}  // namespace arbench
