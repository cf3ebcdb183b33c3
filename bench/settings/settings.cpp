// From measured results to settings; see settings.hpp.
#include "settings/settings.hpp"

#include <algorithm>
#include <cstdio>

#include "arbench/core/errors.hpp"
#include "arbench/tuner/tuner_table_text.hpp"
#include "settings/example_conf.hpp"

namespace arbench {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The plugin table of every world size's rules, or why there can be none.
void build_table(const Measured& m, SettingsReport& rep) {
  tuner::Table t;
  t.source = join(m.paths);
  t.fingerprint = m.facts.fingerprint;
  int patch = 0;
  const bool nccl_ok = std::sscanf(m.facts.nccl_version.c_str(), "%d.%d.%d", &t.nccl_major, &t.nccl_minor, &patch) >= 2;
  t.machine.cpu = m.facts.cpu_model;
  t.machine.cuda_driver = m.facts.cuda_driver;
  for (const ResultGpu& g : m.facts.gpus)
    if (std::find(t.machine.gpus.begin(), t.machine.gpus.end(), g.name) == t.machine.gpus.end())
      t.machine.gpus.push_back(g.name);
  for (const WorldSettings& w : rep.worlds)
    for (tuner::Rule& r : w.nccl.rules()) t.rules.push_back(std::move(r));
  std::vector<std::string> lacking;
  if (!nccl_ok) lacking.push_back("the NCCL version");
  if (t.machine.cpu.empty()) lacking.push_back("the CPU model");
  if (t.machine.cuda_driver.empty()) lacking.push_back("the CUDA driver version");
  if (t.machine.gpus.empty()) lacking.push_back("the GPUs");
  if (!lacking.empty()) {
    rep.table_missing = m.paths.front() + " does not record " + join(lacking) +
                        ", which the plugin checks before applying a table; rerun `arbench run --backend cuda`";
    return;
  }
  for (const WorldSettings& w : rep.worlds)
    t.notes.push_back(std::to_string(w.world) + " GPUs: " +
                      (w.nccl.missing.empty() ? std::to_string(w.nccl.rules().size()) +
                                                   (w.nccl.rules().size() == 1 ? " rule" : " rules")
                                             : w.nccl.missing));
  rep.table_text = tuner::format_table(t);
  tuner::Table back;  // what the plugin will read: the same parser, so a writer bug cannot ship
  if (const std::string why = tuner::parse_table(rep.table_text, back); !why.empty())
    throw Error(kExitFailure, "internal error: the tuner table written does not parse (" + why + ")");
}

}  // namespace

SettingsReport make_settings(const Measured& m, const SettingsOptions& opt) {
  SettingsReport rep;
  rep.sources = m.paths;
  rep.prefer_pull = m.facts.pull_beats_push.value_or(false);
  rep.fingerprint = m.facts.fingerprint;
  rep.nccl_version = m.facts.nccl_version;
  rep.cpu = m.facts.cpu_model;
  rep.cuda_driver = m.facts.cuda_driver;
  if (!m.facts.gpus.empty()) {
    rep.gpu = m.facts.gpus.front().name;
    rep.cc = m.facts.gpus.front().cc;
  }
  rep.dtype = m.dtype;
  rep.hidden = m.hidden;
  rep.nodes = m.facts.nodes;
  rep.verdict = opt.verdict;
  rep.paths = opt.paths;
  rep.stack = opt.stack;
  rep.ignored = m.ignored;

  const std::vector<int> measured = m.worlds();
  std::vector<int> worlds = opt.worlds.empty() ? measured : opt.worlds;
  for (int w : worlds)
    if (std::find(measured.begin(), measured.end(), w) == measured.end()) {
      std::string have;
      for (int x : measured) have += (have.empty() ? "" : ", ") + std::to_string(x);
      throw UsageError("--gpus " + std::to_string(w) + ": the results hold no " + m.dtype + " case on " +
                       std::to_string(w) + " GPUs (measured: " + have + ")");
    }
  for (int w : worlds) {
    WorldSettings ws;
    ws.world = w;
    ws.nccl = plan_nccl(m, w, opt.verdict);
    ws.nccl.version_gate = nccl_version_gate(m.facts.nccl_version, opt.stack);
    ws.findings = find_advantages(m, w, opt.verdict);
    ws.nccl_builds = find_nccl_builds(m, w, opt.verdict);
    ws.engines = engine_sections(m, ws.nccl, ws.findings, opt.paths, opt.stack, opt.verdict);
    rep.worlds.push_back(std::move(ws));
  }
  build_table(m, rep);
  std::vector<NcclPlan> plans;
  for (const WorldSettings& w : rep.worlds) plans.push_back(w.nccl);
  rep.example_conf_text = example_conf(m, plans);
  return rep;
}

}  // namespace arbench
