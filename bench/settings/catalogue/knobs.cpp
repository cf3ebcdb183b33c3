// The knob catalogue; see knobs.hpp. Its data is in knobs_*.cpp (knob_data.hpp), where each entry
// names what it was read in and carries its evidence: release boundaries as data for the
// repositories that could be cloned (NVIDIA/nccl, flashinfer-ai/flashinfer), proven at two tags by
// scripts/check_catalogue.py, and the versioned docs page for those that could not (vLLM, SGLang,
// TensorRT-LLM). Entries read only at commits or pull requests not matched to a release say so
// (verified = false; "not in a release we could find") and are never `set`.
#include "settings/catalogue/knobs.hpp"

#include <stdexcept>
#include <string>

#include "settings/catalogue/knob_data.hpp"

namespace arbench {

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> k = [] {
    std::vector<Knob> all;
    knob_data::add_nccl(all);
    knob_data::add_vllm(all);
    knob_data::add_serving(all);
    knob_data::add_flashinfer(all);
    return all;
  }();
  return k;
}

const Knob& knob(std::string_view id) {
  const Knob* found = nullptr;
  for (const Knob& k : knobs())
    if (k.id == id) found = &k;  // the last: the newest entry
  if (!found) throw std::out_of_range("unknown knob " + std::string(id));
  return *found;
}

}  // namespace arbench
