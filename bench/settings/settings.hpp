// `arbench settings`: from measured results to what the user sets, per world size: the NCCL plan
// (arbench's tuner table, NCCL's example-plugin file), the findings, and one section per engine.
// Pure computation on loaded results (host-tested); bench/cmd_settings.cpp writes the files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/verdict/verdict.hpp"
#include "arbench/tuner/tuner_table.hpp"
#include "settings/engines.hpp"
#include "settings/findings.hpp"
#include "settings/measured.hpp"
#include "settings/nccl_plan.hpp"
#include "settings/catalogue/stack_versions.hpp"

namespace arbench {

struct SettingsOptions {
  std::vector<int> worlds;  // empty: every world size measured
  VerdictOptions verdict;   // a choice counts when significant (alpha) and material (threshold)
  SettingsPaths paths;      // absolute, as they go into the paste lines
  StackVersions stack;      // the versions the user runs (--engine/--nccl/--python); empty: not given
};

struct WorldSettings {
  int world = 0;
  NcclPlan nccl;
  Findings findings;
  std::vector<NcclBuildFinding> nccl_builds;  // NCCL builds measured side by side (--nccl-lib)
  std::vector<EngineSection> engines;
};

struct SettingsReport {
  std::vector<std::string> sources;
  std::string fingerprint, nccl_version, cpu, cuda_driver, gpu, cc, dtype;
  int hidden = 0, nodes = 1;
  bool prefer_pull = false;  // the results say pull beats push on this box (`arbench run --doctor`)
  VerdictOptions verdict;
  SettingsPaths paths;
  StackVersions stack;
  std::vector<WorldSettings> worlds;
  std::string table_text;         // arbench's tuner table (every world size); empty: table_missing says why
  std::string table_missing;
  std::string example_conf_text;  // NCCL's example-plugin file; empty when no world size has rows
  std::vector<std::string> ignored;
};

// UsageError (exit 2) for a --gpus world size the results do not hold.
SettingsReport make_settings(const Measured& m, const SettingsOptions& opt);

}  // namespace arbench
