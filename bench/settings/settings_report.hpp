// Rendering a SettingsReport: text for people (120 columns, except the lines meant to be pasted,
// which are never wrapped) and JSON for scripts (schema "arbench-settings", version 1, described
// in docs/engine-settings.md).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "settings/settings.hpp"

namespace arbench {

inline constexpr int kSettingsSchemaVersion = 1;

std::string format_settings(const SettingsReport& rep);
nlohmann::json settings_json(const SettingsReport& rep);

}  // namespace arbench
