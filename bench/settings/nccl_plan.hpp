// Which NCCL configuration to use at each all-reduce size, for one world size, from the forced
// configurations measured beside NCCL's own choice (`nccl`):
//
//  - at each measured size, the fastest forced configuration replaces NCCL's choice only where it
//    beats `nccl` (significant and material, evidence.hpp); elsewhere NCCL keeps its choice;
//  - LL128 is never chosen unless every GPU pair of that world size is NVLink-connected (NCCL
//    itself enables it only there: over PCIe a 128-byte store may tear; measure/nccl/nccl_protocol_policy);
//  - sizes between two measured sizes go to the larger one's choice, as `arbench tune`'s dispatch
//    rules do: a range runs from just above the previous range's last measured size (0 for the
//    first) to its own last measured size; nothing above the largest measured size is covered;
//  - `nccl[tuned]` (the verification) and `nccl-symm` (not a tuner choice) are never candidates.
//
// The ranges give the rules of arbench's plugin table (forced ranges only; the rest stays NCCL's)
// and the rows of NCCL's example-plugin file, which cannot keep NCCL's choice nor its channel
// count (it sets one channel for every collective no row matches, and for channels -1: NCCL
// 2.28.9..2.30.7), so there every range gets an explicit configuration with a measured channel
// count: the winner where it has one, else the fastest `/ch:N` configuration at those sizes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arbench/tuner/tuner_table.hpp"
#include "settings/evidence.hpp"
#include "settings/measured.hpp"
#include "settings/catalogue/stack_versions.hpp"

namespace arbench {

// What an NCCL variant name says: `nccl` (NCCL's own choice), `nccl[<algo>/<proto>]` (forced
// algorithm and protocol), `nccl[<algo>/<proto>/ch:<N>]` (and exactly N channels: the channel
// sweep, `arbench run --nccl-channels`), `nccl[tuned]` (NCCL with arbench's tuner plugin: the
// verification), `nccl-symm` (NCCL on symmetric windows). Names as kernels/nccl/nccl_allreduce.cu
// runs them; tests/host/settings/ checks both agree.
struct NcclVariant {
  enum Kind { plain, forced, tuned, symm } kind = plain;
  int algo = -1, proto = -1;  // NCCL indices (arbench/tuner/tuner_table.hpp), forced only
  int channels = 0;           // forced with /ch:N; 0: NCCL's channel count
};

// nullopt for anything that is not one of the names above.
std::optional<NcclVariant> parse_nccl_variant(const std::string& variant);

// "nccl[ring/ll/ch:4]" from its parts (channels 0: no /ch).
std::string nccl_forced_name(int algo, int proto, int channels);

struct NcclRange {
  std::uint64_t min_bytes = 0, max_bytes = 0;  // inclusive
  std::string variant;                         // the configuration, or "nccl": NCCL's own choice
  int algo = -1, proto = -1, channels = 0;     // the configuration's (algo -1: NCCL's choice)
  std::vector<Evidence> evidence;              // per measured size in the range
  std::string note;                            // why, where it is not simply "the fastest"
  bool keeps_nccl() const { return algo < 0; }
};

struct NcclPlan {
  int world = 0, nnodes = 1;
  bool nvlink = false;
  std::vector<NcclRange> ranges;   // 0..largest measured size; empty when `missing`
  std::vector<NcclRange> example;  // the example format; empty when `example_missing`
  std::string example_missing, example_run_line;
  std::vector<Evidence> tuned;     // nccl[tuned] vs nccl, per size measured for both
  std::vector<std::string> notes;
  std::string missing, run_line;   // nothing to decide from: why, and what to run
  // Non-empty: the results were measured under another NCCL than the user's (nccl_version_gate),
  // so the plugin table is `try`, never `set`, and no engine command carries it.
  std::string version_gate;

  // The plugin table's rules: the forced ranges.
  std::vector<tuner::Rule> rules() const;
  // The largest channel count the plugin rules (or the example rows) set (0: none).
  int max_channels(bool example_format) const;
};

NcclPlan plan_nccl(const Measured& m, int world, const VerdictOptions& opt);

// Whether NCCL-side choices measured with NCCL `measured` (the result's provenance, "2.28.9") hold
// for the NCCL the user's engine loads (`stack.nccl`, from --nccl or --python): only at the same
// major.minor — another minor changes NCCL's own tuning, so a configuration that beat NCCL's
// choice may no longer (the plugin applies such a table, with a warning: tuner_table.hpp). Empty
// when they hold or the user gave no NCCL version; else why not, and what to run.
std::string nccl_version_gate(const std::string& measured, const StackVersions& stack);

}  // namespace arbench
