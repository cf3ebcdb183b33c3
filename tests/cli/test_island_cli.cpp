// The island variants from the command line: `topo --sysfs-root` shows the islands of the
// 8-GPU fixtures (text and JSON), `run --islands` runs the island twins on the host backend and
// records the islands in the JSON, a world forming one island skips them with the reason, and a
// bad --islands is exit 2 before any work, naming the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace {

std::string fixture(const std::string& name) {
  return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/sysfs/" + name;
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "arbench-island-" + std::to_string(::getpid()) + "-" + name;
}

bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

TEST(IslandCli, TopoShowsTheIslandsOfEveryEightGpuFixture) {
  const std::pair<const char*, const char*> boxes[] = {{"two_switches_eight_gpus", "0-3,4-7"},
                                                      {"two_sockets_eight_gpus", "0-3,4-7"},
                                                      {"flat_eight_gpus", "0-7"},
                                                      {"split_three_five", "0-2,3-7"}};
  for (const auto& [box, islands] : boxes) {
    const std::string out = temp_path(std::string(box) + ".json");
    const CliResult r = run_arbench("topo --sysfs-root " + fixture(box) + " --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r.output, std::string("among them): ") + islands)) << box << "\n" << r.output;
    std::ifstream in(out);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("islands").at("islands"), islands) << box;
    std::filesystem::remove(out);
  }
  const CliResult flat = run_arbench("topo --sysfs-root " + fixture("flat_eight_gpus"));
  EXPECT_TRUE(has(flat.output, "one island: the island variants are skipped")) << flat.output;
}

TEST(IslandCli, RunRecordsTheIslands) {
  const std::string out = temp_path("run.json");
  const CliResult r = run_arbench(
      "run --backend host --variants 'island-*,fused-island-*' --gpus 8 --islands 0-2,3-7 -b 1K -e 2K --tokens 2 "
      "--hidden 64 --samples 2 --warmup 1 --pipelined-ops 1 -q --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& a = j.at("arbench");
  EXPECT_EQ(a.at("config").at("islands"), "0-2,3-7");
  EXPECT_EQ(a.at("provenance").at("islands").at("source"), "--islands");
  EXPECT_EQ(a.at("provenance").at("islands").at("by_world").at("8"), "0-2,3-7");
  int island_cases = 0;
  for (const auto& c : a.at("cases")) {
    const std::string name = c.at("name");
    if (!has(name, "island")) continue;
    ++island_cases;
    EXPECT_EQ(c.at("status"), "ok") << name;
    EXPECT_EQ(c.at("settings").at("islands"), "0-2,3-7") << name;
  }
  EXPECT_EQ(island_cases, 2 * 2 + 2);  // two sizes x two all-reduce variants, one shape x two fused ones
  std::filesystem::remove(out);
}

TEST(IslandCli, OneIslandIsSkippedWithTheReason) {
  const CliResult r = run_arbench("list --backend host --variants island-oneshot --gpus 4 --islands 0-3 -b 1K -e 1K");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "the 4 ranks form one island (0-3)")) << r.output;
  EXPECT_TRUE(has(r.output, "# skipped [1]")) << r.output;
  // The host backend's default: two halves, so the twins run.
  const CliResult halves = run_arbench("list --backend host --variants island-oneshot --gpus 4 -b 1K -e 1K");
  EXPECT_TRUE(has(halves.output, "allreduce/island-oneshot/bf16/gpus:4/bytes:1024\n")) << halves.output;
}

TEST(IslandCli, BadIslandsAreUsageErrors) {
  const std::pair<const char*, const char*> bad[] = {{"0-3,3-7", "rank 3 is listed twice"},
                                                    {"0-3,5-7", "rank 4 is missing"},
                                                    {"0-3", "covers ranks 0-3 but --gpus runs 8 ranks"},
                                                    {"0-x", "'x' is not a rank"}};
  for (const auto& [text, why] : bad) {
    const CliResult r = run_arbench(std::string("run --backend host --variants island-oneshot --gpus 8 --islands '") +
                                    text + "' -b 1K -e 1K -q");
    EXPECT_EQ(r.exit_code, 2) << text << ": " << r.output;
    EXPECT_TRUE(has(r.output, why)) << text << ": " << r.output;
  }
}

}  // namespace
