// Reading a result JSON for compare, tune and the nightly script.
// Two inputs are accepted:
//  - an arbench result (Google Benchmark JSON plus an "arbench" object, schema_version 1): the
//    raw per-case samples come from arbench.cases[].samples_us, provenance from
//    arbench.provenance;
//  - plain Google Benchmark JSON (any benchmark binary, --benchmark_format=json): entries of one
//    run_name are that case's samples (one per repetition; aggregates such as _mean are ignored),
//    real_time converted to microseconds. There is no fingerprint.
// Anything else is unusable input: a UsageError (exit 2) naming the file and what is wrong.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "results/device_state.hpp"
#include "results/stats/noise.hpp"

namespace arbench {

inline constexpr int kResultSchemaVersion = 1;

struct ResultCase {
  std::string name;  // the key cases are matched by
  // Shape, when known (arbench results, or a name that parses as an arbench case name).
  std::string family, variant, dtype;
  int world = 0;
  std::uint64_t bytes = 0;
  int tokens = 0, hidden = 0;
  bool in_place = false;
  bool cold_cache = false;  // `/cold` in the name: --cache cold
  double skew_us = 0;       // `/skew:US` in the name: --skew (ranks arrive US apart)
  bool ok = true;           // false: the case failed (wrong result, timeout, error_occurred)
  std::string reason;       // why it failed
  std::vector<double> samples_us;
  double median_us = 0;     // as recorded; recomputed from samples when absent
  double busbw_gbps = 0;    // 0 when unknown
  std::optional<MedianInterval> median_ci;  // the run's recorded 95% CI of the median (noise)
  std::optional<DeviceState> device;        // the run's recorded device state (GPU runs, NVML)
  std::string islands;                      // island variants: the islands they ran on (settings.islands)
  // NCCL labels (run/nccl_case_labels.hpp): why a `ch:N` case did not run on N channels, and why
  // `nccl-symm` ran without NCCL's symmetric kernels; empty when not labelled.
  std::string nccl_channels_clamped, nccl_symm_kernels_off;
  // A lossy (low-precision) variant's error against the exact sum (docs/method.md, "Accuracy"):
  // nullopt for exact variants, files written before the figures existed, and unchecked cases.
  std::optional<double> max_abs_err, rms_rel_err;
  bool has_error_figures() const { return max_abs_err.has_value() || rms_rel_err.has_value(); }
  // The case's speed-of-light floor (bench/sol/, docs/method.md "The floor of a case"); nullopt for
  // a case without one and files written before floors existed.
  std::optional<double> sol_us;
  // The SMs one op takes (docs/output.md, "sms"); nullopt when unknown or not recorded.
  std::optional<int> sms;
  // 100 x floor / median (100: at the floor); nullopt without a floor or a median.
  std::optional<double> pct_of_sol() const {
    if (!sol_us || !(*sol_us > 0) || !(median_us > 0)) return std::nullopt;
    return 100.0 * *sol_us / median_us;
  }
};

// One GPU of the run, as the provenance records it.
struct ResultGpu {
  std::string name, cc;  // "NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"
};

// One NCCL library of a run with --nccl-lib (provenance.nccl_libraries): the default first
// (variant `nccl`, label ""), then each measured beside it (`nccl@<label>`).
struct ResultNcclLibrary {
  std::string variant, label, version, path;
};

// `arbench.incomplete` of a result: the run stopped before its last case (run/run_outputs.hpp).
struct IncompleteRun {
  std::string reason;
  std::size_t cases_planned = 0, cases_run = 0;
};

struct ResultFile {
  std::string path;
  std::optional<IncompleteRun> incomplete;  // set when the run that wrote it stopped early
  bool is_arbench = false;  // false: plain Google Benchmark JSON
  std::string backend, timing, revision;
  std::string fingerprint;  // empty when unknown
  std::map<std::string, std::string> fingerprint_fields;
  // The machine apart from its stack (results/machine_stack.hpp): what compare and the nightly
  // match on, and the stack they diff. `migrated`: an old result (no provenance.machine), whose
  // machine was derived from its fingerprint fields.
  std::string machine_id;  // empty when unknown
  std::map<std::string, std::string> machine_fields, stack;
  bool migrated = false;
  // Machine facts of the provenance (arbench results; empty when not recorded): what
  // `arbench settings` writes into a tuner table for the plugin to check.
  std::string cpu_model, cuda_driver, nccl_version;
  std::vector<ResultGpu> gpus;
  std::map<std::string, std::string> nccl_env;  // provenance.nccl_env: the run's NCCL_* variables
  int nodes = 1;  // provenance.launch.nodes
  // provenance.box_findings.pull_beats_push (`arbench run --doctor`): the doctor's probe found that
  // posted writes collapse on this box while reads hold; tune and settings then prefer pull
  // variants where push does not beat them. nullopt: not recorded.
  std::optional<bool> pull_beats_push;
  // Per world size: every GPU pair NVLink-connected (provenance.nvlink_all_pairs, cuda backend);
  // absent: not known to be.
  std::map<int, bool> all_nvlink;
  // provenance.nccl_libraries: empty for a run without --nccl-lib (its one library is nccl_version's).
  std::vector<ResultNcclLibrary> nccl_libraries;
  std::vector<ResultCase> cases;  // file order, names unique
};

// Where a report derived from one result file (`arbench step`, `arbench tune`) says its numbers
// come from: the file and what it records about its run.
struct ResultSource {
  std::string source_path, backend, timing, revision, fingerprint;

  void take_source(const ResultFile& r) {
    source_path = r.path;
    backend = r.backend;
    timing = r.timing;
    revision = r.revision;
    fingerprint = r.fingerprint;
  }
};

// What a command reading results expects, for its messages.
inline constexpr const char* kResultExpected = "a result JSON written by `arbench run --out` (or Google Benchmark JSON)";

// Reads and validates `path`; throws UsageError("PATH: what is wrong ..."): a missing file, a
// folder, a binary or empty file, invalid JSON, another arbench output (a topology file, a
// dispatch table ...) or JSON of another schema.
ResultFile load_result_file(const std::string& path);

// "PATH is incomplete: REASON; N of M planned cases were run, ..." for a result that has
// arbench.incomplete, else empty. Commands reading results print it, so a partial sweep is never
// taken for a full one.
std::string incomplete_note(const ResultFile& r);

// Same, from parsed JSON; `label` names the source in messages.
ResultFile parse_result_json(const nlohmann::json& j, const std::string& label);

// Fills `c`'s shape fields from an arbench case name (Case::parse: e.g.
// `allreduce/<variant>/<dtype>/gpus:<N>/bytes:<B>[/inplace]`). False when it is not one.
bool parse_case_name(const std::string& name, ResultCase& c);

}  // namespace arbench
