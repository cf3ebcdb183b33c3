// What a run says about its NCCL cases beyond their timings (measure/nccl/nccl_init_log.hpp and
// nccl_symm_kernels.hpp say why): the channel count a `ch:N` case really ran on, and whether
// `nccl-symm` had NCCL's symmetric kernels at all. Both go into the case's settings (JSON
// `settings`), so `arbench settings` can leave such cases out, and into a footer line each.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "measure/nccl/nccl_init_log.hpp"
#include "results/results.hpp"

namespace arbench {

class NcclCaseLabels {
 public:
  // `asked_channels`: this process runs the cases of one forced environment on N channels
  // (ARBENCH_NCCL_TUNER_CHANNELS of an environment child), 0 otherwise; `log_file`: where NCCL's
  // INIT log goes then. Call before the process's first NCCL call.
  NcclCaseLabels(int asked_channels, const std::string& log_file);
  // The run's NCCL version and, per world size, whether every GPU pair is NVLink-connected;
  // `library_versions`: the version of each library measured beside it, by label (--nccl-lib), for
  // its `nccl-symm@<label>` cases.
  void set_facts(std::string nccl_version, std::map<int, bool> all_nvlink,
                 std::map<std::string, std::string> library_versions = {});
  // Adds the labels to a finished case; NCCL's warnings in its log go to `warn`.
  void label(CaseResult& r, std::ostream& warn);

 private:
  int asked_ = 0;
  std::optional<NcclInitLog> log_;
  std::map<int, std::vector<int>> counts_by_world_;  // the communicators of each world size, as logged
  std::string nccl_version_;
  std::map<int, bool> all_nvlink_;
  std::map<std::string, std::string> library_versions_;
};

// The asked count of an environment child (ARBENCH_NCCL_TUNER_CHANNELS), 0 when not one.
int asked_nccl_channels();

// The console's note under a clamped case's row ("CLAMPED: asked for 16 channels; ..."); empty
// for any other case.
std::string nccl_clamped_label(const CaseResult& r);

// One line each for the run's footer: how many cases NCCL clamped, how many `nccl-symm` cases ran
// without NCCL's symmetric kernels. Empty when none.
std::vector<std::string> nccl_label_footer(const std::vector<CaseResult>& results);

}  // namespace arbench
