// Model presets for the fused family: hidden sizes of real models (sources in docs/variants.md, "Model presets").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbench {

struct ModelPreset {
  std::string_view name;
  int hidden;
};

inline constexpr ModelPreset kModelPresets[] = {
    {"llama3-8b", 4096}, {"llama3-70b", 8192}, {"qwen3-32b", 5120},
    {"deepseek-v3", 7168}, {"mixtral", 4096},
};

inline std::optional<int> model_hidden(std::string_view name) {
  for (const auto& m : kModelPresets)
    if (m.name == name) return m.hidden;
  return std::nullopt;
}

}  // namespace arbench
