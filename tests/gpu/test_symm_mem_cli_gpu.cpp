// `arbench run --symm-mem` end to end on GPUs (docs/variants.md, "Symmetric memory: two
// providers"):
//   - on a machine whose NCCL cannot be loaded (the child runs with ARBENCH_NCCL_LIBRARY pointing
//     at nothing, which is then the only library tried), `--symm-mem cuda` runs every custom
//     kernel, eager and graph, checked, while the NCCL variant is skipped with NCCL's reason;
//   - `--symm-mem all` runs each custom kernel on both providers, as cases of their own, each
//     recording its provider;
//   - the same under mpirun, one process per GPU, the cuda provider's memory shared between the
//     processes as file descriptors.
// Compiled always; skips without a GPU (without two GPUs or mpirun for the MPI test).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../cli/cli_util.hpp"
#include "gpu_test_util.hpp"

namespace {

using nlohmann::json;

std::string temp_json(const std::string& name) {
  return testing::TempDir() + "arbench-symm-" + name + "-" + std::to_string(::getpid()) + ".json";
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// Every custom kernel, both families, small sizes; eager samples and one CUDA graph per case.
const std::string kCustom =
    " --variants 'oneshot-pull,oneshot-push,twoshot,ring,unfused-oneshot,fused-oneshot,fused-twoshot,nccl' "
    "-b 1K -e 256K -f 16 --tokens 1,16 --hidden 1024 --samples 5 --warmup 2 --pipelined-ops 4 "
    "--timeout 5 -q --no-link-probe";

bool is_custom(const std::string& variant) { return variant != "nccl"; }

}  // namespace

TEST(SymmMemCliGpu, TheCudaProviderRunsEveryCustomKernelWhereNcclCannotBeLoaded) {
  ARB_REQUIRE_GPUS(1);
  const int n = arbench::testing::usable_gpus();
  const std::string out = temp_json("no-nccl");
  const CliResult r = run_shell("env ARBENCH_NCCL_LIBRARY=/nonexistent/arbench-test/libnccl.so.2 " +
                                std::string(ARBENCH_EXE) + " run --backend cuda --symm-mem cuda --gpus " +
                                std::to_string(n) + kCustom + " --out " + out + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = read_json(out);
  std::vector<std::string> variants;
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_TRUE(c["checked"].get<bool>()) << c["name"];
    EXPECT_EQ(c["wrong_elements"], 0) << c["name"];
    EXPECT_FALSE(c["pipelined_us"].is_null()) << c["name"] << ": no graph replay";
    EXPECT_EQ(c.value("symm_mem", ""), "cuda") << c["name"];
    variants.push_back(c["variant"]);
  }
  for (const char* v : {"oneshot-pull", "oneshot-push", "twoshot", "ring", "unfused-oneshot", "fused-oneshot",
                        "fused-twoshot"})
    EXPECT_NE(std::find(variants.begin(), variants.end(), v), variants.end()) << v << " did not run without NCCL";
  bool nccl_skipped = false;
  for (const auto& s : doc["arbench"]["skipped"])
    if (s["name"].get<std::string>().find("/nccl/") != std::string::npos) {
      nccl_skipped = true;
      EXPECT_NE(s["reason"].get<std::string>().find("could not be loaded"), std::string::npos) << s.dump();
    }
  EXPECT_TRUE(nccl_skipped) << "the nccl variant should be skipped, NCCL being missing";
}

TEST(SymmMemCliGpu, AllRunsEachCustomKernelOnBothProvidersAsCasesOfTheirOwn) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  const int n = arbench::testing::usable_gpus();
  const std::string out = temp_json("all");
  const CliResult r = run_arbench("run --backend cuda --symm-mem all --gpus " + std::to_string(n) + kCustom +
                                  " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = read_json(out);
  int on[2] = {0, 0};
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["wrong_elements"], 0) << c["name"];
    const std::string name = c["name"], variant = c["variant"];
    if (!is_custom(variant)) continue;
    const std::string provider = c.value("symm_mem", "");
    EXPECT_NE(name.find("/symm:" + provider), std::string::npos) << name << " ran on " << provider;
    ++on[provider == "cuda" ? 0 : 1];
  }
  EXPECT_GT(on[0], 0) << "no custom kernel ran on the cuda provider";
  // NCCL's windows may be refused on this box (its symmetric support off): then every nccl case is
  // skipped with that reason, never run on the other provider.
  if (on[1] == 0) {
    bool reasoned = false;
    for (const auto& s : doc["arbench"]["skipped"])
      reasoned = reasoned || s["name"].get<std::string>().find("/symm:nccl") != std::string::npos;
    EXPECT_TRUE(reasoned) << "no custom kernel ran on the nccl provider, and none was skipped for it";
  }
}

TEST(SymmMemCliGpu, OneProcessPerGpuRunsTheCustomKernelsOnBothProviders) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  if (std::string(ARBENCH_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI";
  const int n = arbench::testing::usable_gpus();
  const std::string mpirun = std::string(ARBENCH_MPIEXEC) + " --allow-run-as-root --oversubscribe -np " +
                             std::to_string(n) + " " + ARBENCH_EXE;
  for (const char* choice : {"all", "cuda"}) {
    const std::string out = temp_json(std::string("mpi-") + choice);
    const std::string env = std::string(choice) == "cuda" ? "env ARBENCH_NCCL_LIBRARY=/nonexistent/libnccl.so.2 " : "";
    const CliResult r = run_shell(env + mpirun + " run --backend cuda --symm-mem " + choice + kCustom + " --out " +
                                  out + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << choice << ":\n" << r.output;
    const json doc = read_json(out);
    EXPECT_EQ(doc["arbench"]["provenance"]["launch"]["processes"], n);
    int custom = 0;
    for (const auto& c : doc["arbench"]["cases"]) {
      EXPECT_EQ(c["status"], "ok") << c.dump();
      EXPECT_EQ(c["wrong_elements"], 0) << c["name"];
      if (is_custom(c["variant"])) ++custom;
    }
    EXPECT_GT(custom, 0) << choice << ": no custom kernel ran across processes";
  }
}
