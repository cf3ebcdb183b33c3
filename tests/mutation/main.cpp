// arbench_mutants: the mutation score of the twin tests (ctest label mutation).
//
//   arbench_mutants                          run every mutant against its kernels, each in a
//                                            child process; print the table and
//                                            "mutants killed: K/N"; exit 1 unless every mutant
//                                            was killed, the way it expects, on every kernel
//   arbench_mutants --part N/K               the same for part N of K (1-based): the kernels
//                                            dealt to it, with their baselines and every mutant
//                                            run against them. The K parts hold every kernel
//                                            once, so they pass together exactly when the whole
//                                            score does (ctest: mutation_score.NofK, which
//                                            ctest -j spreads over the cores)
//   arbench_mutants --child F K S            (internal) run fault F on kernel K, scenario S
//
// Every mutant that targets oneshot-pull or twoshot must also target the FP8 kernel that runs
// the same protocol (oneshot-fp8, twoshot-fp8), or every part fails with NO FP8 TARGET.
// First every scenario runs unmutated (the baseline): it must pass, or a kill would prove
// nothing. A child's exit says how it ended: 0 survived, 10 wrong result, 11 a bounded wait
// expired, 12 the scenario did not fail, 13 another error the protocol recorded (the ring's
// overwrite check), 66 a ThreadSanitizer report (TSAN_OPTIONS exitcode); past kChildBound it is
// killed and counts as a hang.
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
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/mutation/mutants.hpp"

extern char** environ;

namespace arbench::testing {
namespace {

constexpr auto kChildBound = std::chrono::seconds(300);

struct Job {
  std::string mutant;  // empty: the baseline
  algo::Fault fault;
  TwinKernel kernel;
  Scenario scenario;
  Target target;  // the kernel and the outcomes it accepts (baseline: survived)
  Kill got = Kill::survived;
  std::string detail;
  bool as_expected() const { return target.accepts(got); }
};

struct Child {
  pid_t pid;
  std::size_t job;
  std::string log;
  std::chrono::steady_clock::time_point start;
};

std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) {
    std::perror("arbench_mutants: readlink /proc/self/exe");
    std::exit(2);
  }
  return std::string(buf, static_cast<std::size_t>(n));
}

Child spawn(const std::string& exe, const Job& j, std::size_t index) {
  char log[] = "/tmp/arbench_mutant_XXXXXX";
  const int fd = mkstemp(log);
  if (fd < 0) {
    std::perror("arbench_mutants: mkstemp");
    std::exit(2);
  }
  close(fd);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<std::string> args = {exe, "--child", std::to_string(static_cast<int>(j.fault)),
                                   std::to_string(static_cast<int>(j.kernel)),
                                   std::to_string(static_cast<int>(j.scenario))};
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "TSAN_OPTIONS=", 13) != 0) env.emplace_back(*e);
  env.emplace_back("TSAN_OPTIONS=halt_on_error=1:exitcode=" + std::to_string(kExitTsan));
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  for (auto& e : env) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), envp.data()); rc != 0) {
    std::fprintf(stderr, "arbench_mutants: cannot start %s: %s\n", exe.c_str(), std::strerror(rc));
    std::exit(2);
  }
  posix_spawn_file_actions_destroy(&fa);
  return Child{pid, index, log, std::chrono::steady_clock::now()};
}

Kill classify(int status) {
  if (!WIFEXITED(status)) return Kill::crash;
  switch (WEXITSTATUS(status)) {
    case 0: return Kill::survived;
    case kExitWrong: return Kill::wrong;
    case kExitTimeout: return Kill::timeout;
    case kExitNoFailure: return Kill::no_failure;
    case kExitProtocolError: return Kill::protocol_error;
    case kExitTsan: return Kill::tsan;
    default: return Kill::crash;
  }
}

// The line of the child's output that says why it failed: TSan's summary, else its last line.
std::string why(const std::string& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.rfind("SUMMARY: ThreadSanitizer:", 0) == 0) return line.substr(9);
    if (!line.empty() && line.find_first_not_of(" \t") != std::string::npos) last = line;
  }
  return last;
}

// Runs every job, `parallel` children at a time.
void run_all(std::vector<Job>& jobs, unsigned parallel) {
  const std::string exe = self_path();
  std::vector<Child> running;
  std::size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && running.size() < parallel) {
      running.push_back(spawn(exe, jobs[next], next));
      ++next;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      const pid_t done = waitpid(it->pid, &status, WNOHANG);
      Job& j = jobs[it->job];
      if (done == 0 && std::chrono::steady_clock::now() - it->start < kChildBound) {
        ++it;
        continue;
      }
      if (done == 0) {
        kill(it->pid, SIGKILL);
        waitpid(it->pid, &status, 0);
        j.got = Kill::hang;
      } else {
        j.got = classify(status);
      }
      j.detail = why(it->log);
      std::remove(it->log.c_str());
      it = running.erase(it);
    }
  }
}

// The kernels of part `part` (0-based) of `parts`: each kernel's runs (its baselines and every
// mutant run against it) stay in one part, so each part's kills are proven by its own baselines.
// Kernels are dealt, most runs first, to the part with the fewest runs so far (ties: the lower
// part), which keeps the parts about equally long; every kernel lands in exactly one part.
std::set<TwinKernel> kernels_of_part(unsigned part, unsigned parts) {
  std::vector<std::pair<int, TwinKernel>> runs;  // (runs, kernel)
  for (TwinKernel k : kTwinKernels) {
    std::set<Scenario> scenarios;
    int n = 0;
    for (const Mutant& m : mutants())
      for (const Target& t : m.targets)
        if (t.kernel == k) ++n, scenarios.insert(m.scenario);
    if (n > 0) runs.push_back({n + static_cast<int>(scenarios.size()), k});
  }
  std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<int> load(parts, 0);
  std::set<TwinKernel> mine;
  for (const auto& [n, k] : runs) {
    const auto least = static_cast<unsigned>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += n;
    if (least == part) mine.insert(k);
  }
  return mine;
}

int drive(unsigned part, unsigned parts) {
  if (const std::vector<std::string> missing = fp8_targets_missing(); !missing.empty()) {
    for (const std::string& m : missing)
      std::printf("NO FP8 TARGET: %s (it runs the protocol this mutant targets; add it to mutant_table.cpp)\n",
                  m.c_str());
    return 1;
  }
  const std::set<TwinKernel> kernels = kernels_of_part(part, parts);
  std::vector<Job> jobs;
  std::set<std::pair<TwinKernel, Scenario>> baselines;
  for (const Mutant& m : mutants())
    for (const Target& t : m.targets)
      if (kernels.count(t.kernel) != 0) baselines.insert({t.kernel, m.scenario});
  for (const auto& [k, s] : baselines) jobs.push_back({"", algo::Fault::none, k, s, Target{k, Kill::survived}});
  const std::size_t first_mutant = jobs.size();
  for (const Mutant& m : mutants())
    for (const Target& t : m.targets)
      if (kernels.count(t.kernel) != 0) jobs.push_back({m.name, m.fault, t.kernel, m.scenario, t});
  if (parts > 1) {
    std::string names;
    for (TwinKernel k : kernels) names += (names.empty() ? "" : ", ") + std::string(twin_kernel_name(k));
    std::printf("part %u of %u: the runs on %s\n\n", part + 1, parts, names.empty() ? "(no kernel)" : names.c_str());
  }

  const unsigned parallel = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  const auto t0 = std::chrono::steady_clock::now();
  run_all(jobs, parallel);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  bool ok = true;
  std::printf("%-26s %-14s %-21s %-21s %s\n", "mutant", "kernel", "expected", "observed", "detail");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    const bool good = j.as_expected();
    ok = ok && good;
    std::string expect = kill_name(j.target.expect);
    if (j.target.also != Kill::survived) expect += std::string(" or ") + kill_name(j.target.also);
    std::printf("%-26s %-14s %-21s %-21s %s%s\n", i < first_mutant ? "(none: baseline)" : j.mutant.c_str(),
                twin_kernel_name(j.kernel), expect.c_str(), kill_name(j.got), good ? "" : "MISMATCH: ",
                j.detail.c_str());
  }
  int killed = 0, runs_killed = 0, runs = 0, in_part = 0;
  for (const Mutant& m : mutants()) {
    bool all = true, any = false;
    for (std::size_t i = first_mutant; i < jobs.size(); ++i) {
      if (jobs[i].mutant != m.name) continue;
      ++runs;
      any = true;
      const bool k = jobs[i].as_expected();
      runs_killed += k ? 1 : 0;
      all = all && k;
    }
    in_part += any ? 1 : 0;
    killed += any && all ? 1 : 0;
  }
  std::printf("\nmutants killed%s: %d/%d (each on every kernel it runs against%s, as it expects: %d/%d runs)\n",
              parts > 1 ? " on this part's kernels" : "", killed, in_part, parts > 1 ? " here" : "", runs_killed,
              runs);
  std::printf("(%zu baselines and %d mutant runs in %.0f s, %u at a time)\n", first_mutant, runs, took, parallel);
  for (std::size_t i = 0; i < first_mutant; ++i)
    if (jobs[i].got != Kill::survived)
      std::printf("BASELINE FAILED: %s fails with no fault planted (%s), so its kills prove nothing\n",
                  twin_kernel_name(jobs[i].kernel), kill_name(jobs[i].got));
  if (jobs.empty()) {  // more parts than kernels: a part that checks nothing must not pass
    std::printf("part %u of %u holds no kernel: use fewer parts\n", part + 1, parts);
    return 1;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace arbench::testing

int main(int argc, char** argv) {
  using namespace arbench::testing;
  if (argc == 5 && std::strcmp(argv[1], "--child") == 0)
    return run_mutant(static_cast<arbench::algo::Fault>(std::atoi(argv[2])), static_cast<TwinKernel>(std::atoi(argv[3])),
                      static_cast<Scenario>(std::atoi(argv[4])));
  unsigned part = 0, parts = 1;
  if (argc == 3 && std::strcmp(argv[1], "--part") == 0 && std::sscanf(argv[2], "%u/%u", &part, &parts) == 2 &&
      part >= 1 && part <= parts) {
    return drive(part - 1, parts);
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--part N/K]   (runs the mutation score; see tests/mutation/main.cpp)\n", argv[0]);
    return 2;
  }
  return drive(0, 1);
}
