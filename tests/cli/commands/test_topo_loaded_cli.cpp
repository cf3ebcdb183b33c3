// `arbench topo --loaded` end to end on a machine without a GPU: exit 3 with the usual message
// (it needs the GPUs it loads), and option combinations that cannot work are usage errors (exit
// 2) caught before any device is touched. The report itself is fixture-tested in
// tests/host/topo/test_topo_loaded.cpp; the measurement runs in tests/gpu/test_topo_gpu.cpp.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/cli_util.hpp"
#include "tests/cli/commands/topo_without_gpu.hpp"

namespace {

bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

TEST(TopoLoadedCli, NoGpuExitsThreeWithTheUsualMessage) { expect_topo_needs_a_gpu("topo --loaded"); }

TEST(TopoLoadedCli, ImpossibleCombinationsAreUsageErrors) {
  CliResult r = run_arbench("topo --loaded --no-measure");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "cannot run with --no-measure")) << r.output;
  r = run_arbench("topo --loaded --sysfs-root " + std::string(ARBENCH_SOURCE_DIR) +
                  "/tests/fixtures/sysfs/one_switch_four_gpus");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--loaded concerns the measurements on this machine's GPUs, and --sysfs-root reads a saved tree")) << r.output;
  r = run_arbench("topo --loaded --reps 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(TopoLoadedCli, HelpNamesTheOption) {
  CliResult r = run_arbench("topo --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "--loaded")) << r.output;
}

}  // namespace
