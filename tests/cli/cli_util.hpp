// Run the arbench executable and capture its exit code and output (stdout + stderr).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

struct CliResult {
  int exit_code = -1;
  std::string output;  // as printed, with an error's continuation lines joined back (unwrap_errors)
  std::string raw;     // as printed (the width tests read this)
};

// arbench fits an error to 120 columns (bench/cli/parse_errors.hpp): a line starting "arbench"
// followed by lines indented by exactly 4 spaces is one message broken at blanks (the first line
// may be short: a path longer than the rest of the line moves to a line of its own). Joined back, so a test finds a message whatever the width cut.
// `arbench list`'s variant catalogue wraps an entry's summary onto lines of "#" and blanks up to
// the summary column; joined back into one line per entry, so a test finds a phrase whatever the
// column width (the longest variant name sets it).
inline std::string unwrap_catalogue(const std::string& raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\n' && i + 1 < raw.size() && raw[i + 1] == '#') {
      std::size_t j = i + 2;
      while (j < raw.size() && raw[j] == ' ') ++j;
      if (j - (i + 2) >= 20 && j < raw.size() && raw[j] != '\n') {  // a continuation: the summary column
        out += ' ';
        i = j - 1;
        continue;
      }
    }
    out += raw[i];
  }
  return out;
}

inline std::string unwrap_errors(const std::string& raw) {
  std::string out;
  std::size_t start = 0, last_start = std::string::npos;
  while (start < raw.size()) {
    std::size_t end = raw.find('\n', start);
    if (end == std::string::npos) end = raw.size();
    const std::string line = raw.substr(start, end - start);
    const bool continues = last_start != std::string::npos && line.size() > 4 && line.compare(0, 4, "    ") == 0 &&
                           line[4] != ' ' && !out.empty() && out.back() == '\n';
    if (continues) {
      out.back() = ' ';
      out += line.substr(4);
    } else {
      out += line;
      last_start = line.rfind("arbench", 0) == 0 ? start : std::string::npos;
    }
    if (end < raw.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

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
  r.raw = r.output;
  r.output = unwrap_errors(r.raw);
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

