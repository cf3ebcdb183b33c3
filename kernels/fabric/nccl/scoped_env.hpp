// ScopedEnv: NCCL_* variables set while a communicator is created (host code only, so it is
// tested without NCCL: tests/host/fabric/test_scoped_env.cpp).
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace arbench {

// Sets environment variables for its lifetime, then restores the previous values. A variable that
// already holds its value is not touched: in a child process started with its configuration's
// environment (bench/run/process/env_child.hpp) nothing is ever set, so no thread can race a setenv.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& vars) {
    for (const auto& [k, v] : vars) {
      const char* old = std::getenv(k.c_str());
      if (old != nullptr && v == old) continue;
      saved_.push_back({k, old ? std::optional<std::string>(old) : std::nullopt});
      setenv(k.c_str(), v.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
      if (v) setenv(k.c_str(), v->c_str(), 1);
      else unsetenv(k.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace arbench
