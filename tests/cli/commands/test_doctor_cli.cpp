// `arbench doctor` end to end: this machine without a GPU or NVML (runs, says what it could not
// check, exit 0), trees built by the tests for each exit code (0 clean, 4 slows, 5 may hang, a
// non-root read), --json and --out, bad input (exit 2), the "may hang" lines `arbench run` prints
// before its sweep (ARBENCH_TEST_SYSFS_ROOT), and a report given to `run --doctor` reaching the
// result, which `tune` then reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"
#include "tests/host/doctor/box_fixture.hpp"

namespace {

using arbench::test::BoxTree;
using arbench::test::ConfigBuilder;

bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

void expect_fits(const CliResult& r) {
  std::istringstream in(r.raw);
  for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), 120u) << line;
}

std::string scratch(const std::string& name) {
  const std::string d = testing::TempDir() + "arbench-doctor-cli-" + std::to_string(::getpid());
  std::filesystem::create_directories(d);
  return d + "/" + name;
}

constexpr const char* kQuickRun =
    "run --backend host --gpus 2 -b 1K -e 1K --variants reference --warmup 0 --samples 1 --pipelined-ops 0 -q";

TEST(DoctorCli, ThisMachineWithoutAGpuRunsAndSaysWhatItCouldNotCheck) {
  if (has_nvidia_device_node()) GTEST_SKIP() << "an NVIDIA device node exists here; the no-GPU path cannot be checked";
  const CliResult r = run_arbench("doctor");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "functional P2P check: no CUDA device")) << r.output;
  EXPECT_TRUE(has(r.output, "collapse probe: no CUDA device")) << r.output;
  EXPECT_TRUE(has(r.output, "could not read")) << r.output;
  EXPECT_TRUE(has(r.output, "Overall: ")) << r.output;
  expect_fits(r);
  const CliResult j = run_arbench("doctor --json --no-probe");
  ASSERT_EQ(j.exit_code, 0) << j.output;
  const nlohmann::json doc = nlohmann::json::parse(j.output);
  EXPECT_EQ(doc["schema"], "arbench-doctor/1");
  EXPECT_EQ(doc["checks"].size(), 9u);
  EXPECT_EQ(doc["exit_code"], 0);
}

TEST(DoctorCli, ExitCodesOnTreesTheTestBuilds) {
  BoxTree clean;
  arbench::test::two_gpus_one_switch(clean);
  CliResult r = run_arbench("doctor --sysfs-root " + clean.root().string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "the functional P2P check and the probe: not asked (--sysfs-root reads a saved tree)"))
      << r.output;
  expect_fits(r);

  BoxTree slow;
  arbench::test::two_gpus_one_switch(slow);
  slow.link("0000:03:00.0", {"32.0 GT/s PCIe", "32.0 GT/s PCIe", 8, 16});
  r = run_arbench("doctor --sysfs-root " + slow.root().string());
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_TRUE(has(r.output, "trained to x8 of x16")) << r.output;

  BoxTree hang;
  arbench::test::two_gpus_one_switch(hang);
  hang.config("0000:02:00.0", ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).bytes());
  hang.file("sys/kernel/iommu_groups/20/type", "DMA");  // translating behind the redirect
  r = run_arbench("doctor --sysfs-root " + hang.root().string());
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(has(r.output, "fix: sudo setpci -s 0000:02:00.0 106.w=0000")) << r.output;
  EXPECT_TRUE(has(r.output, "Overall: may hang (exit 5)")) << r.output;
  expect_fits(r);

  BoxTree nonroot;
  arbench::test::two_gpus_one_switch(nonroot);
  for (const char* b : {"0000:00:01.1", "0000:01:00.0", "0000:02:00.0", "0000:02:01.0"})
    nonroot.config(b, ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).cut(64));
  r = run_arbench("doctor --sysfs-root " + nonroot.root().string());
  EXPECT_EQ(r.exit_code, 0) << r.output;  // what it could not read does not count
  EXPECT_TRUE(has(r.output, "config space read as 64 bytes")) << r.output;
  EXPECT_TRUE(has(r.output, "sudo arbench doctor")) << r.output;
}

TEST(DoctorCli, JsonAndOut) {
  BoxTree hang;
  arbench::test::two_gpus_one_switch(hang);
  hang.config("0000:02:00.0", ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).bytes());
  hang.file("sys/kernel/iommu_groups/20/type", "DMA");
  const std::string out = scratch("doctor.json");
  const CliResult r = run_arbench("doctor --json --sysfs-root " + hang.root().string() + " --out " + out);
  EXPECT_EQ(r.exit_code, 5) << r.output;
  const nlohmann::json printed = nlohmann::json::parse(r.output);
  std::ifstream in(out);
  const nlohmann::json written = nlohmann::json::parse(in);
  EXPECT_EQ(printed, written);
  EXPECT_EQ(written["verdict"], "may hang");
  EXPECT_EQ(written["checks"][0]["id"], "acs");
  EXPECT_EQ(written["checks"][0]["data"]["bridges"][2]["bdf"], "0000:02:00.0");
  EXPECT_EQ(written["checks"][0]["data"]["bridges"][2]["acs_control"], 0x1d);
  EXPECT_EQ(written["checks"][0]["data"]["bridges"][2]["rule"], "translating");
  std::filesystem::remove(out);
}

TEST(DoctorCli, BadInputIsUsageError) {
  const std::pair<std::string, std::string> cases[] = {
      {"doctor --sysfs-root /nonexistent/arbench", "--sysfs-root: '/nonexistent/arbench' is not a folder"},
      {"doctor --no-probe --probe-budget 5", "--probe-bytes and --probe-budget set the probe, which --no-probe skips"},
      {"doctor --sysfs-root / --probe-bytes 1M", "--probe-bytes sets the probe on this machine's GPUs"},
      {"doctor --probe-bytes 1K", "--probe-bytes: 1K is out of range"},
      {"doctor --nccl 2.x", "--nccl"},
      {"doctor --out /nonexistent/dir/d.json", "the folder /nonexistent/dir does not exist"},
      {std::string(kQuickRun) + " --doctor " ARBENCH_SOURCE_DIR "/results/samples/host-cpu-timing-sample.json",
       "this is a result JSON written by `arbench run`; expected a doctor report"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run_arbench(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(has(r.output, message)) << args << "\n" << r.output;
  }
}

TEST(DoctorCli, RunPrintsWhatMayHangBeforeItsSweep) {
  BoxTree hang;
  arbench::test::two_gpus_one_switch(hang);
  hang.config("0000:02:01.0", ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).bytes());
  hang.file("sys/kernel/iommu_groups/21/type", "DMA");
  CliResult r = run_shell("ARBENCH_TEST_SYSFS_ROOT=" + hang.root().string() + " " + ARBENCH_EXE + " " + kQuickRun);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "arbench: may hang (acs): 0000:02:01.0 (switch downstream port of GPU1): ACSCtl 0x001d"))
      << r.output;
  EXPECT_LT(r.output.find("may hang (acs)"), r.output.find("cases run")) << r.output;
  expect_fits(r);
  BoxTree clean;
  arbench::test::two_gpus_one_switch(clean);
  r = run_shell("ARBENCH_TEST_SYSFS_ROOT=" + clean.root().string() + " " + ARBENCH_EXE + " " + kQuickRun);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(has(r.output, "may hang")) << r.output;
  // Linux's default ACS bits on the root port and both downstream ports, IOMMU in passthrough:
  // slower between the GPUs, nothing may hang, no banner.
  for (const char* b : {"0000:00:01.1", "0000:02:00.0", "0000:02:01.0"})
    clean.config(b, ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).bytes());
  r = run_shell("ARBENCH_TEST_SYSFS_ROOT=" + clean.root().string() + " " + ARBENCH_EXE + " " + kQuickRun);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(has(r.output, "may hang")) << r.output;
  r = run_arbench("doctor --sysfs-root " + clean.root().string());
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_TRUE(has(r.output, "Overall: slows (exit 4)")) << r.output;
  EXPECT_FALSE(has(r.output, "\n  may hang ")) << r.output;  // no item's verdict (the rule texts name the words)
}

TEST(DoctorCli, RunRecordsTheReportAndTuneReadsIt) {
  BoxTree clean;
  arbench::test::two_gpus_one_switch(clean);
  const std::string report = scratch("pull.json"), result = scratch("r.json");
  ASSERT_EQ(run_arbench("doctor --sysfs-root " + clean.root().string() + " --out " + report).exit_code, 0);
  nlohmann::json doc;
  {
    std::ifstream in(report);
    doc = nlohmann::json::parse(in);
  }
  EXPECT_TRUE(doc["findings"]["pull_beats_push"].is_null());  // no probe on a saved tree
  doc["findings"]["pull_beats_push"] = true;                  // as the probe says on such a box
  std::ofstream(report) << doc.dump();
  const CliResult r = run_arbench(
      "run --backend host --gpus 2 -b 1K -e 2K --variants oneshot-pull,oneshot-push --warmup 0 --samples 3 "
      "--pipelined-ops 0 -q --doctor " + report + " --out " + result);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(result);
  const nlohmann::json res = nlohmann::json::parse(in);
  const auto& found = res["arbench"]["provenance"]["box_findings"];
  EXPECT_EQ(found["pull_beats_push"], true) << found.dump();
  EXPECT_EQ(found["source"], report);
  const CliResult t = run_arbench("tune " + result);
  EXPECT_EQ(t.exit_code, 0) << t.output;
  EXPECT_TRUE(has(t.output, "pull beats push on this box")) << t.output;
  std::filesystem::remove(report);
  std::filesystem::remove(result);
}

}  // namespace
