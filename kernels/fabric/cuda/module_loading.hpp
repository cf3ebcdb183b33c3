// CUDA_MODULE_LOADING=EAGER for every process that runs arbench's kernels.
//
// Why: under lazy loading (CUDA's default since 12.2) a kernel's code is loaded at its first
// launch, and that load may wait for the device to go idle. A kernel launched for the first time
// while the start gate's kernel spins (every timed sample enqueues its op behind a gate that
// opens only once every launch returned) would then wait for the gate, and the gate for it: the
// sample times out after --timeout and is discarded. Eager loading loads every kernel when the
// process creates its CUDA context, so no first launch loads anything. The variable is read
// once, at that moment: it is set before the first CUDA call (`arbench run`, `arbench topo`, the
// GPU tests), and recorded in the results' provenance (cuda_env).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace arbench {

inline constexpr const char* kModuleLoadingVar = "CUDA_MODULE_LOADING";

struct ModuleLoadingChange {
  std::string value;  // what to set
  std::string note;   // what to tell the user (empty: nothing worth saying)
};

// What to set when the variable holds `current` (nullptr: unset); nullopt when it is EAGER already.
inline std::optional<ModuleLoadingChange> module_loading_to_set(const char* current) {
  if (current != nullptr && std::string(current) == "EAGER") return std::nullopt;
  ModuleLoadingChange c{"EAGER", {}};
  if (current != nullptr && *current != '\0')
    c.note = std::string(kModuleLoadingVar) + "=" + current + " replaced by EAGER: a kernel loaded at its first launch " +
             "would wait for the start gate's kernel, and the sample would time out";
  return c;
}

// Sets the variable in this process when needed; returns the note for the user ("" when none).
// Call before any thread starts and before the first CUDA call (later it has no effect).
inline std::string prepare_module_loading() {
  const auto c = module_loading_to_set(std::getenv(kModuleLoadingVar));
  if (!c) return {};
  setenv(kModuleLoadingVar, c->value.c_str(), 1);
  return c->note;
}

}  // namespace arbench
