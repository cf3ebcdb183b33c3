// `arbench topo` end to end: the tree of every fixture with --sysfs-root, the JSON it writes,
// bad input (exit 2), and a machine without a GPU (exit 3 with a message saying what to do).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"
#include "tests/cli/commands/topo_without_gpu.hpp"
#include "tests/host/results/replaced_by_rename.hpp"
#include "tests/host/topo/topo_fixtures.hpp"

namespace {

using arbench::test::sysfs_fixture;

bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

TEST(TopoCli, PrintsTheTreeOfEveryFixture) {
  struct Expect {
    const char* fixture;
    const char* pieces[3];
  };
  const Expect cases[] = {
      {"four_switches_two_sockets",
       {"8 NVIDIA GPU(s) placed", "0000:c1:00.0  switch_upstream_port", "GPU4 SYS  SYS  SYS  SYS  X    PIX  NODE NODE"}},
      {"direct_two_root_complexes",
       {"8 NVIDIA GPU(s) placed", "    0000:80:01.1  root_port", "GPU0 X    PHB  PHB  PHB  SYS  SYS  SYS  SYS"}},
      {"one_switch_four_gpus",
       {"4 NVIDIA GPU(s) placed", "NUMA node -1 (no NUMA affinity reported)", "GPU3 PIX  PIX  PIX  X"}},
      {"broken", {"2 NVIDIA GPU(s) placed, 2 not placed", "not placed: device path", "link target missing"}},
  };
  for (const auto& c : cases) {
    CliResult r = run_arbench("topo --sysfs-root " + sysfs_fixture(c.fixture));
    EXPECT_EQ(r.exit_code, 0) << c.fixture << "\n" << r.output;
    EXPECT_TRUE(has(r.output, "PCIe tree:")) << c.fixture;
    EXPECT_TRUE(has(r.output, "Legend:")) << c.fixture;
    for (const char* piece : c.pieces) EXPECT_TRUE(has(r.output, piece)) << c.fixture << ": " << piece << "\n" << r.output;
  }
}

TEST(TopoCli, WritesJsonAtomically) {
  const std::string dir = ::testing::TempDir() + "arbench-topo-cli-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string out = dir + "/topo.json";
  arbench::testing::HeldFile old = arbench::testing::hold_old_file(out);  // a previous file, being read
  CliResult r = run_arbench("topo --sysfs-root " + sysfs_fixture("four_switches_two_sockets") + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  arbench::testing::expect_replaced_by_rename(old, out);
  std::ifstream in(out);
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], "arbench-topo/1");
  EXPECT_EQ(j["source"], "sysfs");
  EXPECT_EQ(j["topology"]["gpus"].size(), 8u);
  EXPECT_EQ(j["topology"]["relations"]["matrix"][0][1], "PIX");
  EXPECT_EQ(j["topology"]["ring_order"]["positions"].size(), 8u);
  std::filesystem::remove_all(dir);
}

// On CPU threads topo measures the schedule patterns (the floors' rates a host run reuses) unless
// --no-patterns turns them off; the text says which.
TEST(TopoCli, HostMeasuresThePatternsUnlessNoPatterns) {
  const std::string out = ::testing::TempDir() + "arbench-topo-patterns-" + std::to_string(::getpid()) + ".json";
  for (const bool patterns : {true, false}) {
    const CliResult r = run_arbench("topo --backend host --gpus 2 --out " + out + (patterns ? "" : " --no-patterns"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(out);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j.contains("patterns"), patterns) << r.output;
    EXPECT_EQ(has(r.output, "chedule patterns"), patterns) << r.output;
  }
  std::filesystem::remove(out);
}

TEST(TopoCli, BadInputIsUsageError) {
  const std::pair<std::string, std::string> cases[] = {
      {"topo --sysfs-root /nonexistent/arbench", "--sysfs-root: '/nonexistent/arbench' is not a folder (no such folder)"},
      {"topo --sysfs-root " + sysfs_fixture("broken") + " --out /nonexistent/dir/x.json",
       "--out /nonexistent/dir/x.json: the folder /nonexistent/dir does not exist"},
      {"topo --bytes 12Q", "--bytes: '12Q' is not a size"},
      {"topo --bytes 8", "--bytes: 8 is out of range: 16 <= SIZE <= 4G"},
      {"topo --bytes 64MiB --reps 0", "--reps: 0 is out of range: 1 <= N <= 1000000"},
      {"topo --wait-timeout -1", ""},  // the exit code only
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run_arbench(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(has(r.output, message)) << args << "\n" << r.output;
  }
}

TEST(TopoCli, NoGpuExitsThreeWithAClearMessage) { expect_topo_needs_a_gpu("topo --no-measure"); }

}  // namespace
