// `arbench topo` end to end: the tree of every fixture with --sysfs-root, the JSON it writes,
// bad input (exit 2), and a machine without a GPU (exit 3 with a message saying what to do).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/host/results/replaced_by_rename.hpp"

namespace {

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr together
};

Result run_arbench(const std::string& args) {
  Result r;
  std::string cmd = std::string(ARBENCH_EXE) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string fixture(const std::string& name) {
  return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/sysfs/" + name;
}

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
    Result r = run_arbench("topo --sysfs-root " + fixture(c.fixture));
    EXPECT_EQ(r.code, 0) << c.fixture << "\n" << r.output;
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
  Result r = run_arbench("topo --sysfs-root " + fixture("four_switches_two_sockets") + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
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

TEST(TopoCli, BadInputIsUsageError) {
  Result r = run_arbench("topo --sysfs-root /nonexistent/arbench");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--sysfs-root: '/nonexistent/arbench' is not a folder (no such folder)")) << r.output;
  r = run_arbench("topo --sysfs-root " + fixture("broken") + " --out /nonexistent/dir/x.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--out /nonexistent/dir/x.json: the folder /nonexistent/dir does not exist")) << r.output;
  r = run_arbench("topo --bytes 12Q");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--bytes: '12Q' is not a size")) << r.output;
  r = run_arbench("topo --bytes 8");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--bytes: 8 is out of range: 16 <= SIZE <= 4G")) << r.output;
  r = run_arbench("topo --bytes 64MiB --reps 0");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--reps: 0 is out of range: 1 <= N <= 1000000")) << r.output;
  r = run_arbench("topo --wait-timeout -1");
  EXPECT_EQ(r.code, 2) << r.output;
}

TEST(TopoCli, NoGpuExitsThreeWithAClearMessage) {
  if (access("/dev/nvidia0", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0)
    GTEST_SKIP() << "an NVIDIA device node exists here; the no-GPU path cannot be checked";
  Result r = run_arbench("topo --no-measure");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_TRUE(has(r.output, "no CUDA device is usable")) << r.output;
  EXPECT_TRUE(has(r.output, "--sysfs-root")) << r.output;
}

}  // namespace
