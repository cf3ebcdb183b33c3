// Which FlashInfer release an engine release installs: vLLM pins `flashinfer-python==X` in
// requirements/cuda.txt, SGLang `flashinfer_python==X` in python/pyproject.toml. Where the user gives
// vLLM or SGLang but no --engine flashinfer=VER, the fusion lines and FlashInfer's use_oneshot line
// judge the FlashInfer that release pins (engines_fusion.cpp) — but only from a row read at that
// release's own tag. A row read at a commit not matched to a release (the file index keeps files by
// commit, not by tag) is printed as what was read, and the line still asks for --engine flashinfer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "settings/catalogue/stack_versions.hpp"

namespace arbench {

struct FlashInferPin {
  std::string_view package = {};     // "vllm", "sglang": the StackVersions key
  std::string_view release = {};     // the engine release, as pip writes it: "0.5.1.post3"
  std::string_view flashinfer = {};  // the FlashInfer it pins: "0.3.0rc1"
  std::string_view repo = {};        // "sgl-project/sglang"
  std::string_view ref = {};         // what was read: "v0.5.1.post3", or "commit 0001da81f774 (version field 0.5.1.post3)"
  std::string_view path = {};        // "python/pyproject.toml"
  bool at_release = false;           // `ref` is the release's own tag: only such a row decides a line
};

// Every pin read, by engine and release.
const std::vector<FlashInferPin>& flashinfer_pins();

// The row of `package` for release `v` in `pins` (the release text with its pre/post-release tail
// must match, a local label "+cu128" aside: 0.5.1.post3 and 0.5.1 may pin different FlashInfers);
// nullptr when none was read.
const FlashInferPin* flashinfer_pin(std::string_view package, const Version& v,
                                    const std::vector<FlashInferPin>& pins = flashinfer_pins());

// Where a pin was read: "sgl-project/sglang commit 0001da81f774 (...), python/pyproject.toml".
std::string pin_source(const FlashInferPin& p);
// "SGLang 0.5.1.post3".
std::string pin_engine(const FlashInferPin& p);

}  // namespace arbench
