// `arbench settings --python PATH`: the versions an engine's Python environment runs, asked of
// that interpreter. It reads the installed distributions' metadata (importlib.metadata: vllm,
// sglang, tensorrt_llm, flashinfer, torch; nothing of them is imported) and, when torch is
// installed, imports torch for the one thing metadata cannot say: the NCCL it loads
// (torch.cuda.nccl.version(): the wheel's own libnccl, e.g. nvidia-nccl-cu12, not the system's).
//
// Errors: PATH missing, a folder or not executable is exit 2 (UsageError: the path typed is wrong);
// an interpreter that runs but fails, hangs past the bound, or prints something else than the
// probe's answer is exit 3 (EnvironmentError: that Python environment does not work). Both name
// the path.
#pragma once

#include <string>
#include <vector>

#include "settings/catalogue/stack_versions.hpp"

namespace arbench {

// The Python program run as `PATH -c kPythonProbeScript`; it prints one JSON object.
extern const char* const kPythonProbeScript;

struct PythonStack {
  StackVersions stack;             // engines found (absent: not installed) and torch's NCCL
  std::string python;              // the interpreter's version, e.g. "3.12.3"
  std::vector<std::string> notes;  // what could not be read, e.g. why the NCCL is unknown
};

// The probe's stdout read (EnvironmentError naming `path` when it is not the probe's answer).
PythonStack parse_python_probe(const std::string& out, const std::string& path);

// Runs the probe, killing it (and its process group) after `timeout_s`.
PythonStack probe_python(const std::string& path, double timeout_s);

}  // namespace arbench
