// NCCL builds side by side through the executable: `arbench list --nccl-lib` names every library
// with its version; a --nccl-lib value that is no NCCL library is exit 2 before any work; and the
// readers of a side-by-side run — `compare --between`, `tune`, `settings` — on the fixture
// tests/fixtures/settings/nccl-builds.json (NCCL 2.29.2 measured beside 2.28.9: 30% faster up to
// 64 KiB, 25% slower from 1 MiB on 2 GPUs).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace {

const std::string kList = "list --backend host --gpus 2 -b 1K -e 1K --family allreduce ";
const std::string kBuilds = std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/settings/nccl-builds.json";

TEST(CliNcclLibs, ListNamesBothLibrariesWithTheirVersions) {
  const CliResult r = run_arbench(kList + "--nccl-lib " ARBENCH_FAKE_NCCL " --nccl-lib engine=" ARBENCH_FAKE_NCCL_NEXT);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("#   nccl@2.29.7: NCCL 2.29.7 " ARBENCH_FAKE_NCCL), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#   nccl@engine: NCCL 2.29.8 " ARBENCH_FAKE_NCCL_NEXT), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#   nccl: "), std::string::npos) << r.output;  // the default, whatever it is here
  EXPECT_NE(r.output.find("allreduce/nccl@engine/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nccl-symm@2.29.7"), std::string::npos) << r.output;
}

// An NCCL 2.2x from before the upgrade (a stand-in posing as 2.26.6: no symmetric windows, no
// device API) beside the default: its `nccl@2.26.6` and forced configurations, no nccl-symm, and why.
TEST(CliNcclLibs, ListOffersAnNccl226WithoutItsSymmetricVariantAndSaysWhy) {
  const CliResult r = run_arbench(kList + "--nccl-lib " ARBENCH_FAKE_NCCL_226);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("#   nccl@2.26.6: NCCL 2.26.6 " ARBENCH_FAKE_NCCL_226), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("allreduce/nccl@2.26.6/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nccl@2.26.6[tree/ll]"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("allreduce/nccl-symm@2.26.6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no nccl-symm@2.26.6: NCCL 2.26.6 has no ncclCommWindowRegister"), std::string::npos)
      << r.output;
}

TEST(CliNcclLibs, AValueThatIsNoNcclLibraryIsRefusedBeforeAnyWork) {
  const std::string text = ::testing::TempDir() + "arbench-cli-not-a-library-" + std::to_string(getpid()) + ".txt";
  std::ofstream(text) << "not a library\n";
  const std::string out = ::testing::TempDir() + "arbench-cli-nccl-libs-" + std::to_string(getpid()) + ".json";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--nccl-lib " + text, "--nccl-lib: " + text + ": not a shared library (no ELF header"},
      {"--nccl-lib /nonexistent/libnccl.so.2", "--nccl-lib: /nonexistent/libnccl.so.2: no such file"},
      {"--nccl-lib " ARBENCH_NOT_NCCL, "not an NCCL library: it has no ncclGetVersion"},
      {"--nccl-lib old=" ARBENCH_FAKE_NCCL_OLD, "--nccl-lib old=" ARBENCH_FAKE_NCCL_OLD ": NCCL 2.13.4 is older than 2.14"},
      {"--nccl-lib " ARBENCH_FAKE_NCCL " --nccl-lib " ARBENCH_FAKE_NCCL, ARBENCH_FAKE_NCCL " is given twice"},
      {"--nccl-lib x=" ARBENCH_FAKE_NCCL " --nccl-lib x=" ARBENCH_FAKE_NCCL_NEXT, "the NAME x is given twice"},
      {"--nccl-lib 'a/b=x'", "no such file"},  // a '/' before '=': all of it is a path
      {"--nccl-lib '-x=" ARBENCH_FAKE_NCCL "'", "NAME '-x' does not start with a letter or a digit"},
      {"--nccl-lib " ARBENCH_FAKE_NCCL " --variants ring", "--nccl-lib adds the variants of each library it names"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_arbench("run --backend host --gpus 2 -b 1K -e 1K --family allreduce --out " + out + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("cases run"), std::string::npos) << "a case ran: " << r.output;
    EXPECT_FALSE(std::ifstream(out).good()) << "a result was written for " << c.args;
  }
  // A library the loader cannot load is the environment's problem.
  const CliResult dep = run_arbench(kList + "--nccl-lib " ARBENCH_NEEDS_DEP);
  EXPECT_EQ(dep.exit_code, 3) << dep.output;
  EXPECT_NE(dep.output.find("libarbench-loader-dep.so: cannot open shared object file"), std::string::npos) << dep.output;
  std::remove(text.c_str());
}

TEST(CliNcclLibs, ARunRecordsTheLibrariesItWasGiven) {
  const std::string out = ::testing::TempDir() + "arbench-cli-nccl-libs-run-" + std::to_string(getpid()) + ".json";
  const CliResult r = run_arbench("run --backend host --gpus 2 -b 1K -e 1K --family allreduce --variants 'ring,nccl@*' "
                                  "--samples 2 --warmup 0 --pipelined-ops 0 -q --nccl-lib " ARBENCH_FAKE_NCCL " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("skipped 1 x nccl@2.29.7: NCCL needs GPUs"), std::string::npos) << r.output;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["arbench"]["config"]["nccl_libs"], nlohmann::json::array({ARBENCH_FAKE_NCCL}));
  EXPECT_EQ(doc["arbench"]["skipped"][0]["name"], "allreduce/nccl@2.29.7/bf16/gpus:2/bytes:1024");
  std::remove(out.c_str());
}

TEST(CliNcclLibs, CompareBetweenTwoLibrariesOfOneRun) {
  CliResult r = run_arbench("compare " + kBuilds + " --between nccl,nccl@2.29.2");
  EXPECT_EQ(r.exit_code, 1) << r.output;  // slower from 1 MiB on 2 GPUs
  EXPECT_NE(r.output.find("stack changed: NCCL 2.28.9 → 2.29.2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("allreduce/nccl/bf16/gpus:2/bytes:16777216"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("left out, measured by one library only: nccl@2.29.2[ring/ll]"), std::string::npos) << r.output;
  // The rebuild of the same release: nothing changed, exit 0.
  r = run_arbench("compare " + kBuilds + " --between nccl,nccl@rebuilt --format json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["regressions"], 0);
  for (const auto& row : j["cases"]) EXPECT_EQ(row["name"].get<std::string>().find('@'), std::string::npos);
  // Refused: a second file, one library, a library the run does not have.
  r = run_arbench("compare " + kBuilds + " " + kBuilds + " --between nccl,nccl@2.29.2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--between compares two NCCL libraries of one run: give one RESULT"), std::string::npos) << r.output;
  r = run_arbench("compare " + kBuilds + " --between nccl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--between takes two NCCL libraries"), std::string::npos) << r.output;
  r = run_arbench("compare " + kBuilds + " --between nccl,nccl@2.30.1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("has no NCCL library nccl@2.30.1; its libraries: nccl (NCCL 2.28.9), nccl@2.29.2 (NCCL 2.29.2), "
                          "nccl@rebuilt (NCCL 2.28.9)"),
            std::string::npos)
      << r.output;
  r = run_arbench("compare " + kBuilds);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("NEW is required"), std::string::npos) << r.output;
}

TEST(CliNcclLibs, TuneAndSettingsReadASideBySideRun) {
  CliResult r = run_arbench("tune " + kBuilds);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nccl@2.29.2 (30 cases): not a dispatch candidate, NCCL library nccl@2.29.2 measured beside "
                          "the run's default"),
            std::string::npos)
      << r.output;
  const std::string dir = ::testing::TempDir() + "arbench-cli-nccl-builds-" + std::to_string(getpid());
  r = run_arbench("settings " + kBuilds + " --gpus 8 --out-dir " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("NCCL builds measured side by side"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("upgrading to NCCL 2.29.2 is worth it on this machine"), std::string::npos)
      << r.output;
  std::ifstream in(dir + "/settings.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["worlds"][0]["nccl_builds"][0]["verdict"], "switch");
  std::filesystem::remove_all(dir);
}

}  // namespace
