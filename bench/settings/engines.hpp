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

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "settings/evidence.hpp"
#include "settings/findings.hpp"
#include "settings/measured.hpp"
#include "settings/catalogue/flashinfer_pins.hpp"
#include "settings/catalogue/knobs.hpp"
#include "settings/nccl_plan.hpp"
#include "settings/catalogue/stack_versions.hpp"

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
  std::string versions;            // which versions the line holds for (or was checked against)
  const Knob* entry = nullptr;     // the catalogue entry judged by (nullptr: the knob's newest)
};

struct EngineSection {
  std::string engine;  // "NCCL", "vLLM", "SGLang", "TensorRT-LLM", "FlashInfer"
  std::vector<EngineSetting> settings;
  std::vector<std::string> command;  // the engine's command with every `set` setting, one shell line each
};

// Where the files are (absolute paths), for the paste lines.
struct SettingsPaths {
  std::string plugin, table, example_conf;
  std::string carried_env;  // filled by engine_sections: the measurement's channel-count variables
};

// The NCCL section's and the commands' environment carries the measurement's NCCL_MIN_CTAS,
// NCCL_MAX_CTAS, NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS (provenance.nccl_env), where it had them.
// `stack`: the versions the user runs (empty: each line says what it was checked against).
std::vector<EngineSection> engine_sections(const Measured& m, const NcclPlan& nccl, const Findings& f,
                                           SettingsPaths paths, const StackVersions& stack = {},
                                           const VerdictOptions& verdict = {});

}  // namespace arbench

// ---- internal: what engines.cpp (NCCL, the dispatch) and engines_serving.cpp (vLLM, SGLang,
// TensorRT-LLM, FlashInfer) share.

namespace arbench::engine_detail {

using S = SettingStatus;

// 524288 -> "0.5": MiB, rounded down to 4 decimals.
std::string mib_value(std::uint64_t bytes);
// The measurement's channel-count variables (NCCL_MIN_CTAS, ...) from provenance.nccl_env.
std::string carried_env(const Measured& m);
// The NCCL variables that load arbench's plugin with the table (empty when it has no rule here).
std::string nccl_env(const NcclPlan& p, const SettingsPaths& paths);
// A shell command as lines: each environment assignment on its own line, then the program and
// each flag, joined by line continuations.
std::vector<std::string> shell_lines(const std::string& env, const std::string& program,
                                     const std::vector<std::string>& flags);
EngineSetting missing(const std::string& knob_id, const std::string& why, const std::string& run_line);
std::string lead_text(const Advantage& a);

struct GpuFacts {
  std::string name, cc;  // of the result's first GPU; empty when not recorded
  int cc_major() const;  // -1 when unknown
};

// What every engine rule reads: the measurements, the plan, the findings, the machine and the
// versions the user runs.
struct EngineContext {
  const Measured& m;
  const NcclPlan& p;
  const Findings& f;
  const SettingsPaths& paths;
  GpuFacts gpu;
  const StackVersions& stack;
  std::optional<Version> measured_nccl;  // the NCCL the result was measured with
  VerdictOptions verdict;
  int world() const { return p.world; }
};

// A setting of knob `id` judged by the catalogue entry for the user's versions (entry and
// versions filled); when the given release lacks the knob, `lacks` is set and the setting is
// `gated`, saying so.
EngineSetting knob_setting(const EngineContext& c, std::string_view id, SettingStatus status, bool* lacks = nullptr);
// A `set` whose entry is not verified becomes `try` (never in a command line). Returns status == set.
bool settle(EngineSetting& s);
// vLLM's and SGLang's custom all-reduce where NCCL is as fast from the smallest size measured:
// `ar` becomes `--disable-custom-all-reduce` (settled; its flag added to `flags` when `set`).
void disable_custom_all_reduce(EngineSetting& ar, std::vector<std::string>& flags);
// Why NCCL's symmetric kernels do not run here for the NCCL the engine loads ("" when they do);
// `versions` gets the NCCL the line was judged for.
std::string symm_kernels_gate(const EngineContext& c, std::string* versions);

// The kernel an engine switch runs, at this world size and size: a line that turns a switch on or
// off is judged on that kernel (engines_vllm.cpp: the custom all-reduce; engines_fusion.cpp:
// FlashInfer's fused kernel), not on the best of arbench's variants.
//
// The custom all-reduce as vLLM runs it (and SGLang its first kernel): `peer` (`vllm-custom`, the
// kernel itself) where the run measured it; else arbench's variant of the same schedule against
// `nccl` at each size the engine's custom all-reduce takes (up to kCustomArMax): `oneshot-pull` where
// it runs its one-stage kernel (always at 2 GPUs; the vllm.custom_ar_shots entry's sizes), `twoshot`
// above. `a` names what was measured; measured = false when neither was.
inline constexpr std::uint64_t kCustomArMax = 8ull << 20;  // vLLM's custom all-reduce: up to 8 MiB
Advantage custom_as_run(const EngineContext& c, const Advantage& peer);
std::string custom_as_run_note(const Advantage& peer, const std::string& engine);
// Whether FlashInfer's fused all-reduce (trtllm_comm) builds for this GPU with the FlashInfer judged
// (flashinfer.comm_arch): `builds` false with the reason where it cannot; `known` false where no
// FlashInfer was given and some release cannot (the reason says which, and what to give).
struct FiBuild {
  bool builds = true, known = true;
  std::string why;
};
// `engine`: "vllm" or "sglang" for that engine's fusion line (the FlashInfer its release pins, where
// no FlashInfer is given), "" for FlashInfer's own line (the pin of whichever engine is given).
FiBuild fi_fusion_build(const EngineContext& c, std::string_view engine);
// The same for a GPU, versions and a pin table (tests give their own table).
FiBuild fi_build_for(const GpuFacts& gpu, const StackVersions& stack, std::string_view engine,
                     const std::vector<FlashInferPin>& pins);
// vLLM's fusion line, judged at each token count on the kernel vLLM picks there.
EngineSetting vllm_fusion(const EngineContext& c, std::vector<std::string>& flags);
// The sizes an entry's rule uses the path at, at `world` GPUs (and capability `cc` as 90, 100; 0:
// any); nullptr where it has no rule for them. `uses`: whether `size` is one; `rule_text` in words.
const SizeRule* size_rule(const Knob& k, int world, int cc = 0);
bool uses(const SizeRule& r, std::uint64_t size);
std::string rule_text(const SizeRule& r);
int cc_number(const GpuFacts& g);  // "10.0" -> 100; -1 when unknown

// A line whose knob turns a peer's kernel on or off (docs/variants.md, "Peers") is judged on the
// peer's own cases where the results have them: `peer` when measured, else `nearest` (arbench's
// nearest variant). peer_note says which, for the line's `why`: "measured `flashinfer-pcie-ipc`, the
// kernel itself" or "measured arbench's nearest variant (NEAREST), not the kernel itself: add
// `PEER` to the run".
const Advantage& peer_or_nearest(const Advantage& peer, const Advantage& nearest);
std::string peer_note(const Advantage& peer, const std::string& peer_variant, const std::string& nearest);

EngineSection vllm_section(const EngineContext& c);
EngineSection sglang_section(const EngineContext& c);
EngineSection trtllm_section(const EngineContext& c);
EngineSection flashinfer_section(const EngineContext& c);

}  // namespace arbench::engine_detail
