// The engine and NCCL knobs `arbench settings` can recommend, each with where its name and
// behaviour were read and at which version, and what is not verified. One list, so the text, the
// JSON and docs/engine-settings.md's table say the same (tests/host/settings checks the docs
// name every knob).
#pragma once

#include <string_view>
#include <vector>

namespace arbench {

struct Knob {
  std::string_view id;      // "vllm.fusion"
  std::string_view engine;  // "vLLM"
  std::string_view what;    // "all-reduce + RMSNorm fusion pass (FlashInfer kernel)"
  std::string_view source;  // file / page, and the version or commit it was read at
  bool verified = false;    // the knob's name and the behaviour used here were read in that source
  std::string_view caveat;  // what is not verified (empty when nothing)
};

const std::vector<Knob>& knobs();
// The knob of `id`; throws std::out_of_range for an unknown id (a programming error).
const Knob& knob(std::string_view id);

}  // namespace arbench
