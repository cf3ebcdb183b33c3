// Model presets: the width (hidden_size) and depth (num_hidden_layers) of real decoders, from
// each model's config.json on Hugging Face (repository below; values and how each was checked:
// docs/decode-step.md, "Model presets"). `arbench run --model` uses the width for the fused
// family's rows; `arbench step` uses both for the all-reduces of one decode step.
#pragma once

#include <optional>
#include <string_view>

namespace arbench {

struct ModelPreset {
  std::string_view name;        // what users type (--model)
  int hidden;                   // config.json hidden_size
  int layers;                   // config.json num_hidden_layers
  std::string_view repository;  // huggingface.co/<repository>/blob/main/config.json
};

// The first five names predate `layers` and stay as they are (they are in users' command
// lines); `mixtral` is the same model as `mixtral-8x7b`.
inline constexpr ModelPreset kModelPresets[] = {
    {"llama3-8b", 4096, 32, "meta-llama/Meta-Llama-3-8B"},
    {"llama3-70b", 8192, 80, "meta-llama/Meta-Llama-3-70B"},
    {"qwen3-32b", 5120, 64, "Qwen/Qwen3-32B"},
    {"deepseek-v3", 7168, 61, "deepseek-ai/DeepSeek-V3"},
    {"mixtral", 4096, 32, "mistralai/Mixtral-8x7B-v0.1"},
    {"llama3.1-70b", 8192, 80, "meta-llama/Llama-3.1-70B"},
    {"llama3.3-70b", 8192, 80, "meta-llama/Llama-3.3-70B-Instruct"},
    {"llama3.1-405b", 16384, 126, "meta-llama/Llama-3.1-405B"},
    {"qwen3-235b-a22b", 4096, 94, "Qwen/Qwen3-235B-A22B"},
    {"gpt-oss-120b", 2880, 36, "openai/gpt-oss-120b"},
    {"mixtral-8x7b", 4096, 32, "mistralai/Mixtral-8x7B-v0.1"},
};

inline const ModelPreset* find_model_preset(std::string_view name) {
  for (const auto& m : kModelPresets)
    if (m.name == name) return &m;
  return nullptr;
}

inline std::optional<int> model_hidden(std::string_view name) {
  const ModelPreset* m = find_model_preset(name);
  return m ? std::optional<int>(m->hidden) : std::nullopt;
}

}  // namespace arbench
