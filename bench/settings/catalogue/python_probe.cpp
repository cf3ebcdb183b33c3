// The versions of a Python environment, asked of its interpreter; see python_probe.hpp.
#include "settings/catalogue/python_probe.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"

extern char** environ;

namespace arbench {

// Distribution names: the PyPI names (flashinfer-python since FlashInfer 0.2, tensorrt-llm)
// and the older or underscore spellings. Python 3.8+ (importlib.metadata).
const char* const kPythonProbeScript = R"PY(
import json, sys
out = {"arbench_python_probe": 1, "python": sys.version.split()[0], "packages": {}, "nccl": None, "nccl_note": ""}
try:
    from importlib import metadata
except ImportError:
    metadata = None
    out["nccl_note"] = "this Python has no importlib.metadata (Python 3.8 or newer needed)"
names = {"vllm": ["vllm"], "sglang": ["sglang"], "tensorrt_llm": ["tensorrt-llm", "tensorrt_llm"],
         "flashinfer": ["flashinfer-python", "flashinfer"], "torch": ["torch"]}
for key, dists in names.items():
    for d in dists:
        try:
            out["packages"][key] = metadata.version(d)
            break
        except Exception:
            pass
if metadata is not None and "torch" not in out["packages"]:
    out["nccl_note"] = "torch is not installed there, so the NCCL an engine would load is unknown"
elif metadata is not None:
    try:
        import torch
        v = torch.cuda.nccl.version()
        if isinstance(v, int):
            v = (v // 10000, v // 100 % 100, v % 100) if v >= 20900 else (v // 1000, v // 100 % 10, v % 100)
        out["nccl"] = ".".join(str(x) for x in tuple(v)[:3])
    except Exception as e:
        out["nccl_note"] = "torch.cuda.nccl.version() failed: %s: %s" % (type(e).__name__, str(e)[:300])
sys.stdout.write(json.dumps(out) + "\n")
)PY";

namespace {

std::string tail(const std::string& s, std::size_t n = 600) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct TempFile {
  std::string path;
  TempFile() {
    std::string t = (std::filesystem::temp_directory_path() / "arbench-python-XXXXXX").string();
    const int fd = mkstemp(t.data());
    if (fd < 0) throw EnvironmentError("cannot create a temporary file in " + std::filesystem::temp_directory_path().string());
    ::close(fd);
    path = t;
  }
  ~TempFile() { ::unlink(path.c_str()); }
};

}  // namespace

PythonStack parse_python_probe(const std::string& out, const std::string& path) {
  const std::string bad = "--python " + path + ": its answer is not the version probe's (";
  nlohmann::json j;
  const auto start = out.rfind("{\"arbench_python_probe\"");
  try {
    if (start == std::string::npos) throw std::runtime_error("no probe answer in its output");
    j = nlohmann::json::parse(out.substr(start));
    if (!j.is_object() || !j.value("packages", nlohmann::json()).is_object())
      throw std::runtime_error("no 'packages' object");
  } catch (const std::exception& e) {
    throw EnvironmentError(bad + e.what() + "); output: " + tail(out) +
                           "\nIs it a Python 3.8+ interpreter? Or give the versions: --engine NAME=VERSION --nccl X.Y.Z");
  }
  PythonStack r;
  r.python = j.value("python", std::string());
  r.stack.source = "python " + path;
  for (const auto& [key, value] : j["packages"].items()) {
    bool known = false;
    for (const char* n : kStackEngines) known = known || key == n;
    if (!known) continue;
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (const auto v = parse_version(text)) {
      r.stack.engines[key] = *v;
    } else {
      r.notes.push_back(key + " reports version '" + text + "', which is not a release number: left out");
    }
  }
  if (j.contains("nccl") && j["nccl"].is_string()) {
    const std::string text = j["nccl"].get<std::string>();
    if (const auto v = parse_version(text)) {
      r.stack.nccl = *v;
    } else {
      r.notes.push_back("torch reports NCCL '" + text + "', which is not a version: left out");
    }
  } else {
    const std::string note = j.value("nccl_note", std::string());
    r.notes.push_back("the NCCL torch loads is unknown" + (note.empty() ? std::string() : ": " + note) +
                      " (give it with --nccl X.Y.Z)");
  }
  return r;
}

// A bare name ("python3") is looked up on $PATH, as a shell would; a path is taken as it is.
static std::string on_path(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return name;
  const char* env = std::getenv("PATH");
  std::stringstream dirs(env ? env : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return name;
}

PythonStack probe_python(const std::string& typed, double timeout_s) {
  const std::string path = on_path(typed);
  struct stat st {};
  if (path.empty()) throw UsageError("--python is empty; name a Python interpreter, e.g. /opt/venv/bin/python");
  if (::stat(path.c_str(), &st) != 0)
    throw UsageError("--python " + path + ": no such file; name the interpreter of the engine's environment "
                     "(e.g. /opt/venv/bin/python, or `which python` inside it)");
  if (!S_ISREG(st.st_mode)) throw UsageError("--python " + path + ": not a file (a folder?); name the interpreter itself");
  if (::access(path.c_str(), X_OK) != 0) throw UsageError("--python " + path + ": not executable; name a Python interpreter");

  TempFile out, err;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.path.c_str(), O_WRONLY | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.path.c_str(), O_WRONLY | O_TRUNC, 0600);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group: a timeout kills what it started too
  posix_spawnattr_setpgroup(&attr, 0);
  std::string a0 = path, a1 = "-c", a2 = kPythonProbeScript;
  char* argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, path.c_str(), &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw EnvironmentError("--python " + path + ": cannot start it (" + std::strerror(rc) + ")");

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (auto nap = std::chrono::milliseconds(1);; nap = std::min(nap * 2, std::chrono::milliseconds(50))) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0) throw EnvironmentError("--python " + path + ": lost track of it (waitpid failed)");
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      std::ostringstream s;
      s << timeout_s;
      throw EnvironmentError("--python " + path + ": no answer within " + s.str() +
                             " s (importing torch hangs there?); raise --python-timeout, or give the versions: "
                             "--engine NAME=VERSION --nccl X.Y.Z");
    }
    std::this_thread::sleep_for(nap);
  }
  const std::string stdout_text = read_all(out.path), stderr_text = read_all(err.path);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                              : "was killed by signal " + std::to_string(WTERMSIG(status));
    throw EnvironmentError("--python " + path + ": it " + how + " running the version probe" +
                           (stderr_text.empty() ? std::string() : ":\n" + tail(stderr_text)) +
                           "\nIs it a Python 3.8+ interpreter? Or give the versions: --engine NAME=VERSION --nccl X.Y.Z");
  }
  return parse_python_probe(stdout_text, path);
}

}  // namespace arbench
