// A command line per subcommand on which every one of its options applies (so a probe of one
// option meets that option's own checks, not "does not apply"), for the tests that probe every
// option of every subcommand. A new subcommand needs its line here: the tests fail until it has
// one. Each base is (option, value) pairs after the subcommand and its positionals; the probe
// replaces the pair of the option it probes.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/cli_util.hpp"

struct ProbeBase {
  std::string head;  // the subcommand and its positionals
  std::vector<std::pair<std::string, std::string>> options;

  // The command with `option` set to `value` (its base pair, if any, dropped).
  std::string with(const std::string& option, const std::string& value) const {
    std::string cmd = head;
    for (const auto& [o, v] : options)
      if (o != option) cmd += " " + o + (v.empty() ? "" : " " + v);
    return cmd + " " + option + " " + value;
  }
};

inline std::string sample_result() { return std::string(ARBENCH_SOURCE_DIR) + "/results/samples/host-cpu-timing-sample.json"; }

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `topo`'s measurement options apply to this machine (exit 3 without a GPU); its --sysfs-root
// and --out to a saved tree.
inline const std::map<std::string, ProbeBase>& probe_bases() {
  static const std::map<std::string, ProbeBase> bases = [] {
    const std::vector<std::pair<std::string, std::string>> sweep = {
        {"--backend", "host"}, {"--gpus", "2"}, {"-b", "1K"}, {"-e", "1K"}, {"--variants", "ring,fused-oneshot"},
        {"--tokens", "1"},     {"--warmup", "0"}, {"--pipelined-ops", "0"}};
    std::vector<std::pair<std::string, std::string>> run = sweep;
    run.push_back({"-q", ""});
    const std::string sample = sample_result();
    std::map<std::string, ProbeBase> m;
    m["run"] = {"run", run};
    m["list"] = {"list", sweep};
    m["compare"] = {"compare " + sample + " " + sample, {}};
    m["tune"] = {"tune " + sample, {}};
    m["step"] = {"step " + sample, {{"--model", "llama3-70b"}, {"--gpus", "8"}, {"--batch", "1"}, {"--draft", "0"}}};
    m["settings"] = {"settings " ARBENCH_SOURCE_DIR "/tests/fixtures/settings/pcie8-crossovers.json --out-dir " +
                         testing::TempDir() + "arbench-probe-settings",
                     {}};
    m["topo"] = {"topo", {{"--bytes", "64K"}, {"--reps", "1"}, {"--latency-rounds", "1"}, {"--wait-timeout", "1"}}};
    m["doctor"] = {"doctor", {{"--no-probe", ""}}};
    return m;
  }();
  return bases;
}

// topo's options that read a saved tree instead of measuring: probed on this base.
inline ProbeBase topo_sysfs_base() {
  return {"topo", {{"--sysfs-root", std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/sysfs/one_switch_four_gpus"}}};
}

inline const ProbeBase& probe_base(const std::string& sub, const std::string& option) {
  static const ProbeBase sysfs = topo_sysfs_base();
  if (sub == "topo" && (option == "--sysfs-root" || option == "--out")) return sysfs;
  return probe_bases().at(sub);
}
