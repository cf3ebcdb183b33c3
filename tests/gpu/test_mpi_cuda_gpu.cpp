// The cuda backend with one process per GPU (docs/multi-process.md): `mpirun -np N arbench run
// --backend cuda`, NCCL across processes and the custom kernels through NCCL windows. Compiled
// always; skips without two GPUs or without mpirun (a build without MPI).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../cli/cli_util.hpp"
#include "gpu_test_util.hpp"

namespace {

using nlohmann::json;

#define ARB_REQUIRE_MPIRUN()                                                          \
  do {                                                                                \
    if (std::string(ARBENCH_MPIEXEC).empty())                                         \
      GTEST_SKIP() << "this build has no MPI (ARBENCH_WITH_MPI=OFF or none found)"; \
  } while (0)

std::string mpirun(int np) {
  return std::string(ARBENCH_MPIEXEC) + " --allow-run-as-root --oversubscribe -np " + std::to_string(np) + " " +
         ARBENCH_EXE;
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

}  // namespace

// One process per GPU on one node: NCCL and the custom kernels, every case correct, the same
// case names as one process driving the same GPUs.
TEST(MpiCudaGpu, OneProcessPerGpuRunsNcclAndTheCustomKernels) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  ARB_REQUIRE_MPIRUN();
  const int n = arbench::testing::usable_gpus();
  const std::string out = testing::TempDir() + "arbench-mpi-cuda-" + std::to_string(::getpid()) + ".json";
  const std::string args = " run --backend cuda --family allreduce --variants 'nccl,oneshot-*,twoshot,ring' "
                           "-b 1K -e 1M -f 32 --samples 5 --warmup 2 --pipelined-ops 4 -q --no-link-probe --out ";
  CliResult r = run_shell(mpirun(n) + args + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = read_json(out);
  EXPECT_EQ(doc["arbench"]["provenance"]["launch"]["processes"], n);
  std::vector<std::string> names;
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["wrong_elements"], 0) << c["name"];
    names.push_back(c["name"]);
  }
  for (const char* v : {"/nccl/", "/oneshot-pull/", "/oneshot-push/", "/twoshot/", "/ring/"})
    EXPECT_TRUE(std::any_of(names.begin(), names.end(), [&](const std::string& s) { return s.find(v) != std::string::npos; }))
        << v << " did not run across processes";

  const std::string alone = out + ".alone.json";
  CliResult a = run_arbench(args.substr(1) + alone + " --gpus " + std::to_string(n));
  ASSERT_EQ(a.exit_code, 0) << a.output;
  std::vector<std::string> alone_names;
  for (const auto& c : read_json(alone)["arbench"]["cases"]) alone_names.push_back(c["name"]);
  std::sort(names.begin(), names.end());
  std::sort(alone_names.begin(), alone_names.end());
  EXPECT_EQ(names, alone_names);
}

// The copy-engine variants with one process per GPU (docs/variants.md, "Copy engines"): every copy
// between another process's mapped staging or output and this one's, every stream flag written by
// one process and waited for by another, on both symmetric-memory providers (NCCL windows; the
// cuda provider's exported handles), eagerly and replayed as CUDA graphs (the pipelined ops), up
// to 4 MiB (several chunks of each segment). ce-island on two halves (--islands) when the GPUs
// are even in number.
TEST(MpiCudaGpu, CopyEngineVariantsAcrossProcesses) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  ARB_REQUIRE_MPIRUN();
  const int n = arbench::testing::usable_gpus();
  std::string islands;
  if (n % 2 == 0)
    islands = " --islands 0-" + std::to_string(n / 2 - 1) + "," + std::to_string(n / 2) + "-" + std::to_string(n - 1);
  for (const char* provider : {"nccl", "cuda"}) {
    const std::string out =
        testing::TempDir() + "arbench-mpi-ce-" + provider + "-" + std::to_string(::getpid()) + ".json";
    CliResult r = run_shell(mpirun(n) + " run --backend cuda --family allreduce --variants 'ce-*' --symm-mem " +
                            provider + islands + " -b 1K -e 4M -f 16 --samples 5 --warmup 2 --pipelined-ops 4 -q "
                            "--no-link-probe --out " + out);
    ASSERT_EQ(r.exit_code, 0) << provider << "\n" << r.output;
    std::vector<std::string> variants;
    for (const auto& c : read_json(out)["arbench"]["cases"]) {
      EXPECT_EQ(c["status"], "ok") << c.dump();
      EXPECT_EQ(c["wrong_elements"], 0) << c["name"];
      EXPECT_GT(c["pipelined_us"].get<double>(), 0.0) << c["name"];
      variants.push_back(c["variant"]);
    }
    for (const char* v : {"ce-twoshot", "ce-ring"})
      EXPECT_EQ(std::count(variants.begin(), variants.end(), v), 4) << v << " on " << provider;
    if (!islands.empty()) {
      EXPECT_EQ(std::count(variants.begin(), variants.end(), "ce-island"), 4) << provider;
    }
  }
}

// More processes than GPUs on the node: refused, once, with exit 3.
TEST(MpiCudaGpu, MoreProcessesThanGpusIsRefused) {
  ARB_REQUIRE_GPUS(1);
  ARB_REQUIRE_MPIRUN();
  const int n = arbench::testing::usable_gpus();
  CliResult r = run_shell(mpirun(n + 1) + " run --backend cuda --variants nccl -b 1K -e 1K -q");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("start at most one process per GPU"), std::string::npos) << r.output;
}

// A rank whose op never runs (ARBENCH_TEST_ABSENT_RANK): every process fails the case with the
// same message within the bound, and the run exits 1.
TEST(MpiCudaGpu, AnAbsentRankFailsTheCaseOnEveryProcess) {
  ARB_REQUIRE_GPUS(2);
  ARB_REQUIRE_MPIRUN();
  CliResult r = run_shell("env ARBENCH_TEST_ABSENT_RANK=1 " + mpirun(2) +
                          " run --backend cuda --variants oneshot-pull -b 1K -e 1K --family allreduce --timeout 1 "
                          "--no-link-probe");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("1 failed"), std::string::npos) << r.output;
}
