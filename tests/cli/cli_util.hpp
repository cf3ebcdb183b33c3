// Run the arbench executable and capture its exit code and output (stdout + stderr).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

struct CliResult {
  int exit_code = -1;
  std::string output;
};

// Runs a shell command line; its stderr joins its stdout.
inline CliResult run_shell(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline CliResult run_arbench(const std::string& args) { return run_shell(std::string(ARBENCH_EXE) + " " + args); }

inline bool has_gpu_driver_and_device() {
  // The tests that need "no GPU here" check the backend arbench itself picks.
  CliResult r = run_arbench("list --backend auto --variants reference -b 1K -e 1K --gpus 1");
  return r.output.find("using --backend host") == std::string::npos;
}

// Whether an NVIDIA device node exists here: where one does, the no-GPU path cannot be checked.
inline bool has_nvidia_device_node() { return access("/dev/nvidia0", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0; }

