// The settings of one committed fixture result (tests/fixtures/settings/, written by
// make_fixtures.py), with fixed file paths so the outputs do not depend on the checkout.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "settings/settings.hpp"
#include "settings/settings_report.hpp"

namespace arbench::testing {

inline std::string fixture_path(const std::string& name) {
  return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/settings/" + name;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `text` with the checkout's path replaced by "<src>".
inline std::string portable(std::string text) {
  const std::string src = ARBENCH_SOURCE_DIR;
  for (std::size_t p = text.find(src); p != std::string::npos; p = text.find(src, p)) text.replace(p, src.size(), "<src>");
  return text;
}

struct FixtureSettings {
  std::unique_ptr<Measured> measured;
  SettingsReport report;

  const WorldSettings& world(int w) const {
    for (const WorldSettings& ws : report.worlds)
      if (ws.world == w) return ws;
    throw std::out_of_range("no world " + std::to_string(w));
  }
  const EngineSetting* setting(int w, const std::string& knob_id) const {
    for (const EngineSection& e : world(w).engines)
      for (const EngineSetting& s : e.settings)
        if (s.knob == knob_id) return &s;
    return nullptr;
  }
  const EngineSection& engine(int w, const std::string& name) const {
    for (const EngineSection& e : world(w).engines)
      if (e.engine == name) return e;
    throw std::out_of_range("no engine " + name);
  }
};

inline SettingsOptions fixed_paths() {
  SettingsOptions opt;
  opt.paths.plugin = "/opt/arbench/lib/libarbench-nccl-tuner.so";
  opt.paths.table = "/settings/arbench-nccl-tuner.table";
  opt.paths.example_conf = "/settings/nccl_tuner.conf";
  return opt;
}

// The versions of docs/engine-settings.md's example: `--engine vllm=0.11.0,torch=2.9.0 --nccl 2.27.7`.
inline StackVersions docs_example_stack() {
  StackVersions s;
  s.engines["vllm"] = *parse_version("0.11.0");
  s.engines["torch"] = *parse_version("2.9.0");
  s.nccl = parse_version("2.27.7");
  s.source = "--engine/--nccl";
  return s;
}

inline FixtureSettings settings_of(const std::string& path, SettingsOptions opt = fixed_paths()) {
  FixtureSettings f;
  f.measured = load_measured({path}, "bf16", std::nullopt);
  f.report = make_settings(*f.measured, opt);
  return f;
}

// The settings of a fixture for given versions (`engines`: name -> release; `nccl`), with its GPUs
// reporting capability `cc` where that is not empty, computed once per test program (the lines
// point into it).
inline const FixtureSettings& cached_settings(const std::string& fixture,
                                              const std::map<std::string, std::string>& engines = {},
                                              const std::string& nccl = "", const std::string& cc = "") {
  static std::map<std::string, std::unique_ptr<FixtureSettings>> cache;
  std::string key = fixture + "|" + nccl + "|" + cc;
  for (const auto& [k, v] : engines) key += "|" + k + "=" + v;
  std::unique_ptr<FixtureSettings>& f = cache[key];
  if (f) return *f;
  SettingsOptions opt = fixed_paths();
  for (const auto& [k, v] : engines) opt.stack.engines[k] = *parse_version(v);
  if (!nccl.empty()) opt.stack.nccl = parse_version(nccl);
  opt.stack.source = "test";
  std::string path = fixture_path(fixture);
  if (!cc.empty()) {  // a copy whose GPUs report `cc`
    nlohmann::json j = nlohmann::json::parse(read_text(path));
    for (nlohmann::json& g : j["arbench"]["provenance"]["gpus"]) g["cc"] = cc;
    path = ::testing::TempDir() + "/cc-" + cc + "-" + fixture + "-" + std::to_string(getpid());
    std::ofstream(path) << j.dump();
  }
  f = std::make_unique<FixtureSettings>(settings_of(path, opt));
  if (!cc.empty()) std::remove(path.c_str());
  return *f;
}

// The 8-GPU PCIe fixture (RTX PRO 6000 Blackwell: capability 12.0) for given versions: the box the
// release-line tests read their lines on.
inline const FixtureSettings& pcie8(const std::map<std::string, std::string>& engines = {},
                                    const std::string& nccl = "") {
  return cached_settings("pcie8-crossovers.json", engines, nccl);
}

}  // namespace arbench::testing
