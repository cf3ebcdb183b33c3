// The settings of one committed fixture result (tests/fixtures/settings/, written by
// make_fixtures.py), with fixed file paths so the outputs do not depend on the checkout.
#pragma once

#include <fstream>
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

}  // namespace arbench::testing
