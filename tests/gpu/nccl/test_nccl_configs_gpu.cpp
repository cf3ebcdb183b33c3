// The nccl configurations force what they say: each `nccl[<algo>/<proto>]` runs in a fresh
// child process (NCCL reads NCCL_DEBUG* once per process) with NCCL_DEBUG=INFO,
// NCCL_DEBUG_SUBSYS=TUNING and NCCL_DEBUG_FILE set; NCCL then logs, on rank 0, one line per
// collective: "AllReduce: <n> Bytes -> Algo RING proto LL channel{Lo..Hi}=...". Every such line
// must name the forced algorithm and protocol. Skips without 2 GPUs or without NCCL.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "measure/harness.hpp"
#include "run/process/env_child.hpp"
#include "measure/fabric_factory.hpp"
#include "tests/gpu/gpu_cases.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"

extern char** environ;

using namespace arbench;

namespace {

constexpr const char* kChildVar = "ARB_NCCL_CONFIG_CHILD";
// What NCCL says when it cannot run the forced algorithm/protocol (NCCL 2.28.9, src/enqueue.cc:
// "Error : no algorithm/protocol available for function AllReduce with datatype ...").
constexpr const char* kNcclRefusal = "no algorithm/protocol available";

struct Expect {
  const char* variant;
  const char* line;  // what every tuning line must contain; empty: NCCL's own choice
  bool strict;       // the combination must run (ring is always available on one node)
};

const Expect kConfigs[] = {
    {"nccl[ring/simple]", "Algo RING proto SIMPLE channel", true},
    {"nccl[ring/ll]", "Algo RING proto LL channel", true},
    {"nccl[ring/ll128]", "Algo RING proto LL128 channel", false},
    {"nccl[tree/simple]", "Algo TREE proto SIMPLE channel", false},
    {"nccl[tree/ll]", "Algo TREE proto LL channel", false},
    {"nccl", "", true},
};

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A child (one configuration on 2 GPUs, 10 s timeouts inside) that is still running after this is
// stuck outside arbench's bounds (e.g. in NCCL's connection setup): it is killed.
constexpr double kChildDeadlineS = 120.0;
constexpr int kChildKilled = -2;

// Waits for `pid` at most kChildDeadlineS; kills it (SIGKILL) after that. Returns its exit status,
// -1 when it did not exit normally, kChildKilled when it was killed at the deadline.
int wait_child(pid_t pid) {
  bool killed = false;
  const int code = wait_bounded(pid, kChildDeadlineS, killed);
  return killed ? kChildKilled : code;
}

// Runs this test binary again, filtered to the child test, with `extra` added to (and NCCL_ALGO /
// NCCL_PROTO removed from) the environment; stdout+stderr go to `log`. Returns the exit status
// (wait_child).
int run_child(const std::vector<std::string>& extra, const std::string& log) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.rfind("NCCL_ALGO=", 0) == 0 || kv.rfind("NCCL_PROTO=", 0) == 0 || kv.rfind("NCCL_DEBUG", 0) == 0) continue;
    env.push_back(kv);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", filter = "--gtest_filter=NcclConfigsGpuChild.*";
  char* argv[] = {exe.data(), filter.data(), nullptr};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  return wait_child(pid);
}

}  // namespace

// The child half: runs the configuration named in ARB_NCCL_CONFIG_CHILD on 2 GPUs.
TEST(NcclConfigsGpuChild, RunOneConfiguration) {
  const char* variant = std::getenv(kChildVar);
  if (variant == nullptr) GTEST_SKIP() << "helper: run by NcclConfigsGpu.ForcedAlgorithmIsTheOneUsed";
  RunConfig cfg;
  cfg.warmup = 1;
  cfg.samples = 2;
  cfg.pipelined_ops = 0;
  cfg.allow_ll128_pcie = true;  // asked for explicitly: this test checks that NCCL obeys the forcing
  FabricCache fabrics = arbench::testing::gpu_fabrics(10.0);
  Harness h(cfg, Backend::cuda, Registry::builtin(), fabrics);
  Case c{variant, Family::allreduce, DType::bf16, 2, std::size_t(1) << 20, 0, 0, false};
  Support s = h.plan(c);
  ASSERT_TRUE(s.ok) << s.reason;
  CaseResult r = h.run(c);
  ASSERT_TRUE(r.ok) << r.reason;
}

TEST(NcclConfigsGpu, ForcedAlgorithmIsTheOneUsed) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  const std::string dir = ::testing::TempDir();
  int index = 0;
  for (const Expect& e : kConfigs) {
    const std::string base = dir + "arbench_nccl_cfg_" + std::to_string(getpid()) + "_" + std::to_string(index++);
    const std::string debug = base + ".nccl.log", out = base + ".out";
    const int rc = run_child({std::string(kChildVar) + "=" + e.variant, "NCCL_DEBUG=INFO",
                              "NCCL_DEBUG_SUBSYS=TUNING", "NCCL_DEBUG_FILE=" + debug},
                             out);
    const std::string text = read_file(debug);
    std::vector<std::string> tuning;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);)
      if (l.find("AllReduce: ") != std::string::npos && l.find(" Bytes -> Algo ") != std::string::npos)
        tuning.push_back(l);
    ASSERT_NE(rc, kChildKilled) << e.variant << ": still running after " << kChildDeadlineS << " s, killed:\n"
                                << read_file(out);
    if (rc != 0) {
      // NCCL may refuse a forced combination on this machine (e.g. LL128 or Tree on PCIe):
      // allowed for the non-strict ones, and only as NCCL's own refusal (its message in the
      // debug log or in the case's reason, ncclGetLastError): any other failure of a non-strict
      // configuration (a crash, a hang, a wrong result) is a failure of the test.
      const std::string child = read_file(out);
      EXPECT_FALSE(e.strict) << e.variant << " failed (exit " << rc << "):\n" << child;
      const bool refused = text.find(kNcclRefusal) != std::string::npos || child.find(kNcclRefusal) != std::string::npos;
      EXPECT_TRUE(refused) << e.variant << " failed (exit " << rc << ") without NCCL's refusal ('" << kNcclRefusal
                           << "'):\n" << child;
      std::cout << "[ NOTE ] " << e.variant << " refused by NCCL here (exit " << rc << ")\n";
    } else {
      EXPECT_FALSE(tuning.empty()) << e.variant << ": no TUNING line in " << debug << ":\n" << text;
    }
    if (*e.line != '\0') {
      for (const auto& l : tuning) EXPECT_NE(l.find(e.line), std::string::npos) << e.variant << ": NCCL used: " << l;
    }
    if (!tuning.empty()) std::cout << "[ NCCL ] " << e.variant << ": " << tuning.front() << "\n";
    std::remove(debug.c_str());
    std::remove(out.c_str());
  }
}
