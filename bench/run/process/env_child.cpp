// Cases in a child process of their own environment (env_child.hpp).
#include "run/process/env_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "results/report.hpp"

extern char** environ;

namespace arbench {
namespace {

constexpr const char* kCasesVar = "ARBENCH_CHILD_CASES";
constexpr const char* kOutVar = "ARBENCH_CHILD_OUT";

std::string tail_of(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "\n  " + all[i];
  return out;
}

}  // namespace

int wait_bounded(pid_t pid, double bound_s, bool& killed) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(bound_s);
  killed = false;
  for (auto nap = std::chrono::milliseconds(1);; nap = std::min(nap * 2, std::chrono::milliseconds(50))) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (done < 0) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      killed = true;
      return -1;
    }
    std::this_thread::sleep_for(nap);
  }
}

std::string env_text(const ChildEnv& env) {
  std::string s;
  for (const auto& [k, v] : env) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> argv;
  for (std::string a; std::getline(in, a, '\0');) argv.push_back(a);
  return argv;
}

std::optional<ChildRole> child_role() {
  const char* cases = std::getenv(kCasesVar);
  const char* out = std::getenv(kOutVar);
  if (cases == nullptr || out == nullptr || *cases == '\0' || *out == '\0') return std::nullopt;
  ChildRole r;
  r.out = out;
  std::ifstream in(cases);
  if (!in) throw UsageError(std::string(kCasesVar) + "=" + cases + ": cannot read the case list its parent wrote");
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) r.cases.push_back(l);
  return r;
}

EnvChildResult run_cases_in_child(const EnvChildRequest& req) {
  EnvChildResult res;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("arbench-child-" + std::to_string(::getpid()) + "-" +
                                                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string cases = (dir / "cases.txt").string(), out = (dir / "result.json").string(),
                    log = (dir / "log.txt").string();
  {
    std::ofstream c(cases);
    for (const auto& n : req.cases) c << n << "\n";
  }
  // The environment at exec: this process's, with the request's variables and the child's role.
  ChildEnv set = req.env;
  set[kCasesVar] = cases;
  set[kOutVar] = out;
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv = *e;
    if (!set.count(kv.substr(0, kv.find('=')))) env.push_back(kv);
  }
  for (const auto& [k, v] : set) env.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = req.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int spawned = args.empty() ? ENOENT : posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  const std::string what = "the child process for " + env_text(req.env);
  if (spawned != 0) {
    res.failure = what + " could not be started (" + std::string(std::strerror(spawned)) + ")";
    res.exit_code = -1;
    fs::remove_all(dir, ec);
    return res;
  }
  bool killed = false;
  res.exit_code = wait_bounded(pid, req.bound_s, killed);
  try {
    std::ifstream in(out);
    if (in) {
      const nlohmann::json doc = nlohmann::json::parse(in);
      for (const auto& c : doc.at("arbench").at("cases")) {
        CaseResult r = case_from_json(c, out);
        res.results[r.c.name()] = std::move(r);
      }
      for (const auto& s : doc.at("arbench").value("skipped", nlohmann::json::array())) {
        const auto name = s.at("name").get<std::string>();
        if (std::find(req.cases.begin(), req.cases.end(), name) == req.cases.end() || res.results.count(name)) continue;
        CaseResult r;
        if (auto c = Case::parse(name)) r.c = *c;
        r.ok = false;
        r.reason = "skipped by " + what + ": " + s.at("reason").get<std::string>();
        res.results[name] = std::move(r);
      }
    }
  } catch (const std::exception& e) {
    res.failure = what + " left an unreadable result (" + e.what() + ")";
  }
  if (res.results.size() < req.cases.size() && res.failure.empty())
    res.failure = what + (killed ? " was still running after " + std::to_string(int(req.bound_s)) + " s and was killed"
                                 : " ended (exit " + std::to_string(res.exit_code) + ") before its last case") +
                  "; its last lines:" + tail_of(log, 8);
  fs::remove_all(dir, ec);
  return res;
}

EnvChildren::EnvChildren(std::vector<std::pair<Case, ChildEnv>> cases, std::vector<std::string> argv, double timeout_s)
    : cases_(std::move(cases)), argv_(std::move(argv)), timeout_s_(timeout_s) {}

CaseResult EnvChildren::run(const Case& c, const ChildEnv& env) {
  auto it = done_.find(env);
  if (it == done_.end()) {
    EnvChildRequest req;
    req.argv = argv_;
    req.env = env;
    for (const auto& [k, e] : cases_)
      if (e == env) req.cases.push_back(k.name());
    // Every case of the child is bounded by its own timeouts and watchdogs; this only catches a
    // child that never ends: room for NCCL's set-up and several bounded waits per case.
    req.bound_s = 600 + double(req.cases.size()) * (8 * timeout_s_ + 60);
    it = done_.emplace(env, run_cases_in_child(req)).first;
  }
  const EnvChildResult& got = it->second;
  if (auto r = got.results.find(c.name()); r != got.results.end()) return r->second;
  CaseResult failed;
  failed.c = c;
  failed.ok = false;
  failed.reason = got.failure.empty() ? "the child process for " + env_text(env) + " did not return this case"
                                      : got.failure;
  return failed;
}

}  // namespace arbench
