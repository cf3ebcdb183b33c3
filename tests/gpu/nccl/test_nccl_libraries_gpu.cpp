// NCCL builds side by side on real GPUs (`arbench run --nccl-lib`, docs/variants.md): the default
// NCCL copied to another path is a second library with its own handle and communicators; its
// `nccl@copy` cases (its own choice, a forced configuration, and `nccl-symm@copy` where the box has
// symmetric memory) run and pass the same correctness check as `nccl`'s, in one run beside them;
// the result records both libraries, and `compare --between` compares them. Skips without a GPU
// and NCCL.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"
#include "tests/cli/cli_util.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

namespace fs = std::filesystem;

TEST(NcclLibrariesGpu, ACopyOfTheDefaultRunsBesideItAndIsChecked) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  const int w = devices >= 2 ? 2 : 1;
  const arbench::NcclApi& def = arbench::NcclApi::get();
  const fs::path dir = fs::path(::testing::TempDir()) / ("arbench_nccl_libs_gpu_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path copy = dir / "libnccl.so.2";
  fs::copy_file(def.file.empty() ? def.path : def.file, copy, fs::copy_options::overwrite_existing);
  const std::string out = (dir / "builds.json").string();
  // The same release under another name: named, as two unnamed libraries of one version are refused.
  const CliResult run = run_shell(
      std::string("ARBENCH_NCCL_LIBRARY=") + (def.file.empty() ? def.path : def.file) + " " + ARBENCH_EXE +
      " run --backend cuda --gpus " + std::to_string(w) + " --family allreduce --variants "
      "'nccl,nccl@copy,nccl@copy[ring/simple],nccl-symm,nccl-symm@copy' -b 4K -e 256K -f 8 --warmup 2 --samples 5 "
      "--pipelined-ops 0 --timeout 20 --nccl-lib copy=" + copy.string() + " --out " + out);
  const std::string& text = run.output;
  ASSERT_EQ(run.exit_code, 0) << text;
  EXPECT_NE(text.find("NCCL library nccl@copy: NCCL " + arbench::nccl_version_text(def.version) + " " + copy.string()),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(nccl@copy: " + copy.string() + ")"), std::string::npos) << "no fabric of the copy:\n" << text;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto& libs = doc["arbench"]["provenance"]["nccl_libraries"];
  ASSERT_EQ(libs.size(), 2u) << doc["arbench"]["provenance"].dump();
  EXPECT_EQ(libs[1]["variant"], "nccl@copy");
  EXPECT_EQ(libs[1]["path"], copy.string());
  EXPECT_EQ(libs[1]["build_id"], libs[0]["build_id"]);  // one build, two objects
  std::set<std::string> ran;
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["wrong_elements"], 0) << c.dump();
    ran.insert(c["variant"].get<std::string>());
    if (c["variant"].get<std::string>().find("@copy") != std::string::npos) {
      EXPECT_EQ(c["settings"]["nccl_library"].get<std::string>().rfind("copy: NCCL ", 0), 0u) << c.dump();
    }
  }
  for (const char* v : {"nccl", "nccl@copy", "nccl@copy[ring/simple]"}) EXPECT_TRUE(ran.count(v)) << v << " did not run";
  // nccl-symm of both or of neither: one box, one build.
  EXPECT_EQ(ran.count("nccl-symm"), ran.count("nccl-symm@copy"));
  // The two libraries of the run compared: every case of both, under the default's names.
  const CliResult compared = run_arbench("compare " + out + " --between nccl,nccl@copy --threshold 1000 --format json");
  const std::string& cmp = compared.output;
  ASSERT_TRUE(compared.exit_code == 0 || compared.exit_code == 1) << cmp;
  const nlohmann::json report = nlohmann::json::parse(cmp.substr(cmp.find('{')));
  EXPECT_GE(report["cases"].size(), 3u) << cmp;  // nccl at 4K, 32K, 256K at least
  fs::remove_all(dir);
}

}  // namespace
