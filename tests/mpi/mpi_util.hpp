// Run arbench under mpirun (or alone) and capture its exit code, output (stdout and stderr of
// every process) and wall time.
#pragma once

#include <chrono>
#include <filesystem>
#include <set>
#include <string>

#include "../cli/cli_util.hpp"

struct MpiResult : CliResult {
  double seconds = 0;  // wall time
};

inline MpiResult run_command(const std::string& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  MpiResult r{run_shell(cmd)};
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// `env` ("NAME=value ..." or empty) is set for every process.
inline MpiResult run_mpi(int processes, const std::string& args, const std::string& env = "") {
  return run_command((env.empty() ? "" : "env " + env + " ") + ARBENCH_MPIEXEC +
                     " --allow-run-as-root --oversubscribe -np " + std::to_string(processes) + " " + ARBENCH_EXE +
                     " " + args);
}

inline MpiResult run_alone(const std::string& args) { return run_command(std::string(ARBENCH_EXE) + " " + args); }

inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Shared-memory segments left behind by arbench processes that no longer run: a segment is
// named /arbench.<creator pid>.<n> (POSIX shm lives in /dev/shm on Linux). Segments of
// processes still running (another test, at this moment) are not leaks.
inline std::set<std::string> leaked_segments() {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("arbench.", 0) != 0) continue;
    const std::string pid = name.substr(8, name.find('.', 8) - 8);
    if (!std::filesystem::exists("/proc/" + pid)) names.insert(name);
  }
  return names;
}
