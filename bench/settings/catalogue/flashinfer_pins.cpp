// The FlashInfer each engine release pins (flashinfer_pins.hpp), with where each pin was read.
// vllm-project/vllm and sgl-project/sglang are over the size the tools here clone, and the public
// file index that holds their files keeps versions by commit with no tags: a pin is recorded with
// at_release only where the file was read at the release's tag. None could be, so far: the rows
// below are what was read at commits, and the lines ask for --engine flashinfer=VERSION.
#include "settings/catalogue/flashinfer_pins.hpp"

#include <string>

namespace arbench {

const std::vector<FlashInferPin>& flashinfer_pins() {
  static const std::vector<FlashInferPin> pins = {
      // python/pyproject.toml's `version` field reads 0.5.1.post3 at this commit; the tag's own
      // commit was not read, and the pin may have changed between the two.
      {"sglang", "0.5.1.post3", "0.3.0rc1", "sgl-project/sglang",
       "commit 0001da81f774 (its version field reads 0.5.1.post3)", "python/pyproject.toml",
       false},
  };
  return pins;
}

namespace {
std::string without_local_label(const Version& v) {
  const std::string t = v.text();
  return t.substr(0, t.find('+'));
}
}  // namespace

const FlashInferPin* flashinfer_pin(std::string_view package, const Version& v, const std::vector<FlashInferPin>& pins) {
  for (const FlashInferPin& p : pins)
    if (p.package == package)
      if (const auto r = parse_release(std::string(p.release)); r && without_local_label(*r) == without_local_label(v))
        return &p;
  return nullptr;
}

std::string pin_source(const FlashInferPin& p) {
  return std::string(p.repo) + " " + std::string(p.ref) + ", " + std::string(p.path);
}

std::string pin_engine(const FlashInferPin& p) {
  const std::string engine = p.package == "vllm" ? "vLLM" : p.package == "sglang" ? "SGLang" : std::string(p.package);
  return engine + " " + std::string(p.release);
}

}  // namespace arbench
