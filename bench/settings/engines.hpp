// Per world size and engine (NCCL itself, vLLM, SGLang, TensorRT-LLM, FlashInfer's API): what to
// set, from the NCCL plan and the findings, and what the engine cannot take on this machine.
//
// Each setting has a status:
//   set      the knob is verified and the measurement says switch it: in the engine's command line
//   try      the measurement says it helps, but the knob, or its behaviour on this GPU, is not
//            verified (knobs.hpp says what): listed apart, never in the command line
//   keep     the engine's default is what the measurement favours: nothing to paste
//   gated    the engine cannot take it on this GPU or topology (a path gated to other architectures
//            or to NVLink): reported, never emitted as if it worked
//   missing  the result lacks the measurement: `run_line` measures it
#pragma once

#include <string>
#include <vector>

#include "settings/evidence.hpp"
#include "settings/findings.hpp"
#include "settings/measured.hpp"
#include "settings/nccl_plan.hpp"

namespace arbench {

enum class SettingStatus { set, try_it, keep, gated, missing };
const char* status_name(SettingStatus s);  // "set", "try", "keep", "gated", "missing"

struct EngineSetting {
  std::string knob;    // knobs.hpp id
  SettingStatus status = SettingStatus::keep;
  std::string paste;   // the exact text to paste (env assignments, a flag, a YAML line, Python)
  std::string value;   // what the measurement gives, for people
  std::string why;     // how it follows from the evidence, or why it cannot apply
  std::vector<Evidence> evidence;  // the decisive comparisons (all sizes in the JSON)
  std::string run_line;            // missing: what to run
};

struct EngineSection {
  std::string engine;  // "NCCL", "vLLM", "SGLang", "TensorRT-LLM", "FlashInfer"
  std::vector<EngineSetting> settings;
  std::vector<std::string> command;  // the engine's command with every `set` setting, one shell line each
};

// Where the files are (absolute paths), for the paste lines.
struct SettingsPaths {
  std::string plugin, table, example_conf;
};

struct GpuFacts {
  std::string name, cc;  // of the result's first GPU; empty when not recorded
  int cc_major() const;  // -1 when unknown
};

std::vector<EngineSection> engine_sections(const Measured& m, const NcclPlan& nccl, const Findings& f,
                                           const SettingsPaths& paths);

}  // namespace arbench
