// The catalogue's data, one file per project (knobs_nccl.cpp, knobs_vllm.cpp, knobs_serving.cpp for
// SGLang and TensorRT-LLM, knobs_flashinfer.cpp); knobs() in knobs.cpp joins them. Each entry's
// evidence is written as one string literal per field (knobs.hpp, Boundary), which
// scripts/check_catalogue.py reads from these files.
#pragma once

#include <vector>

#include "settings/catalogue/knobs.hpp"

namespace arbench::knob_data {

inline constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;
using K = KnobKind;
using D = KnobDefault;

void add_nccl(std::vector<Knob>& k);
void add_vllm(std::vector<Knob>& k);
void add_serving(std::vector<Knob>& k);
void add_flashinfer(std::vector<Knob>& k);

}  // namespace arbench::knob_data
