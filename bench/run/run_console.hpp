// What `arbench run` and `arbench list` print around the table: the banner (what will run and
// how), the footer (what happened, every failure and skip with its reason) and the variant
// catalogue of `list`.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "measure/harness.hpp"
#include "sweep/run_config.hpp"

namespace arbench {

struct SweepCounts {
  std::size_t cases = 0;     // will run
  std::size_t filtered = 0;  // left out by --benchmark_filter
  std::size_t skipped = 0;   // cannot run on this backend
};

// `world`: the launch line of a run of several processes (one rank per process);
// `device_state`: the line that says how the GPUs' state is recorded, or why not; `symm_mem`: the
// lines on the custom kernels' symmetric-memory providers (symm_mem_text.hpp; none off the cuda
// backend); `nccl_libraries`: with --nccl-lib, one line per NCCL library (the default first).
void print_banner(std::ostream& o, const RunConfig& cfg, Backend b, const FabricCache& fabrics,
                  const std::string& links_source, const std::string& device_state, const SweepCounts& n,
                  const World& world, const std::vector<std::string>& symm_mem = {},
                  const std::vector<std::string>& nccl_libraries = {}, const std::string& sol_source = {});

// `stopped`: why the run ended early (empty when it ran every case); `planned`: its case count.
void print_footer(std::ostream& o, const std::vector<CaseResult>& results, const std::vector<Skipped>& skipped,
                  const std::string& stopped, std::size_t planned);

// The variants --variants can name, after `list`'s cases: configurations (`nccl[ring/ll]`) are
// in no default sweep, so this is where a user finds them. '#' lines, like the header, so that
// `grep -v '^#'` keeps the case names only.
void print_catalogue(std::ostream& o, const Registry& reg, Backend b);

// `list` with --nccl-lib: the NCCL libraries of the run, one '#' line each (the default first, then
// each `nccl@<label>` with its version and path). Nothing without lines.
void print_nccl_libraries(std::ostream& o, const std::vector<std::string>& lines);

// `list`'s skipped cases, one a line ("NAME  # skipped [1]"), then each reason once
// ("# skipped [1]: NCCL needs GPUs; ...").
void print_skipped_cases(std::ostream& o, const std::vector<Skipped>& skipped);

}  // namespace arbench
