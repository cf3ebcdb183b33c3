// What a run says about its NCCL cases (measure/nccl/nccl_init_log.hpp, nccl_symm_kernels.hpp,
// run/nccl_case_labels.hpp): the channel count a `ch:N` case ran on, read from NCCL's INIT log,
// and `nccl-symm` without NCCL's symmetric kernels from NCCL 2.29.2 on PCIe.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "measure/nccl/nccl_init_log.hpp"
#include "measure/nccl/nccl_symm_kernels.hpp"
#include "run/nccl_case_labels.hpp"

namespace arbench {
namespace {

// NCCL 2.28.9's line (src/init.cc), as NCCL_DEBUG_FILE receives it: host:pid:tid [device].
constexpr const char* kLog =
    "box:4242:4250 [0] NCCL INFO comm 0x5558 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n"
    "box:4242:4250 [0] NCCL INFO 12 coll channels, 12 collnet channels, 0 nvls channels, 16 p2p channels, 2 p2p "
    "channels per peer\n"
    "box:4242:4251 [1] NCCL INFO 8 coll channels, 8 collnet channels, 0 nvls channels, 16 p2p channels, 2 p2p "
    "channels per peer\n"
    "box:4242:4251 [1] NCCL WARN Cuda failure 'peer access is not supported between these two devices'\n";

TEST(NcclInitLog, ReadsEveryCommunicatorsCollChannels) {
  EXPECT_EQ(nccl_coll_channels_in_log(kLog), (std::vector<int>{12, 8}));
  EXPECT_TRUE(nccl_coll_channels_in_log("NCCL INFO Channel 00/12 :    0   1   2\n").empty());
  EXPECT_TRUE(nccl_coll_channels_in_log("x12 coll channels, 3").empty()) << "a number glued to a word is not a count";
  EXPECT_EQ(nccl_warnings_in_log(kLog).size(), 1u);
}

TEST(NcclInitLog, AClampedRequestIsLabelledWithTheCountThatRan) {
  const auto labels = nccl_channel_labels(16, {12, 8});
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_EQ(labels[0], (std::pair<std::string, std::string>{"nccl_channels_run", "8"}));
  EXPECT_EQ(labels[1].first, "nccl_channels_clamped");
  EXPECT_NE(labels[1].second.find("asked for 16 channels; the communicator has 8"), std::string::npos);
  const auto fits = nccl_channel_labels(8, {12, 8});
  ASSERT_EQ(fits.size(), 1u) << "8 of 8 is not clamped";
  EXPECT_EQ(fits[0].second, "8");
  EXPECT_TRUE(nccl_channel_labels(4, {}).empty()) << "nothing logged: nothing claimed";
}

// The process of a `ch:N` environment: NCCL's log goes to a file, read after each case; a world
// size whose communicators were created earlier keeps its count; the user's own NCCL_DEBUG wins.
TEST(NcclCaseLabels, ChildLabelsItsCasesFromTheLogFile) {
  for (const char* k : {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"}) ::unsetenv(k);
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("arbench-nccl-log-" + std::to_string(::getpid()));
  std::filesystem::remove(file);
  NcclCaseLabels labels(16, file.string());
  EXPECT_STREQ(std::getenv("NCCL_DEBUG_FILE"), file.c_str());
  EXPECT_STREQ(std::getenv("NCCL_DEBUG_SUBSYS"), "INIT");
  labels.set_facts("2.28.9", {{8, false}});
  {
    std::ofstream(file) << kLog << "box:4242:4250 [0] NCCL INFO 12 coll ch";  // a line being written
  }
  std::ostringstream warn;
  CaseResult a;
  a.c = *Case::parse("allreduce/nccl[ring/ll/ch:16]/bf16/gpus:8/bytes:65536");
  labels.label(a, warn);
  EXPECT_NE(warn.str().find("NCCL WARN Cuda failure"), std::string::npos) << "the log file must not hide NCCL's warnings";
  CaseResult b;  // the next size: the same communicators, nothing new in the log
  b.c = *Case::parse("allreduce/nccl[ring/ll/ch:16]/bf16/gpus:8/bytes:131072");
  labels.label(b, warn);
  for (const CaseResult* r : {&a, &b}) {
    ASSERT_EQ(r->settings.size(), 2u) << r->c.name();
    EXPECT_EQ(r->settings[0].second, "8");
    EXPECT_EQ(r->settings[1].first, "nccl_channels_clamped");
  }
  EXPECT_EQ(nccl_clamped_label(a).rfind("CLAMPED: asked for 16 channels", 0), 0u) << "the console's note";
  const auto footer = nccl_label_footer({a, b});
  ASSERT_EQ(footer.size(), 1u);
  EXPECT_NE(footer[0].find("2 NCCL case(s) asked for more channels"), std::string::npos) << footer[0];
  for (const char* k : {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"}) ::unsetenv(k);
  std::filesystem::remove(file);

  ::setenv("NCCL_DEBUG", "WARN", 1);
  NcclCaseLabels theirs(16, file.string());
  EXPECT_EQ(std::getenv("NCCL_DEBUG_FILE"), nullptr) << "the user's NCCL_DEBUG is left alone";
  CaseResult c;
  c.c = a.c;
  theirs.label(c, warn);
  ASSERT_EQ(c.settings.size(), 1u);
  EXPECT_NE(c.settings[0].second.find("unknown (NCCL_DEBUG"), std::string::npos);
  ::unsetenv("NCCL_DEBUG");
}

TEST(NcclSymmKernels, OffFromNccl2292WithoutNvlinkOnly) {
  EXPECT_EQ(nccl_version_code("2.29.2"), 22902);
  EXPECT_EQ(nccl_version_code("2.28.9+cuda13.0"), 22809);
  EXPECT_EQ(nccl_version_code("unavailable: libnccl.so.2 not found"), -1);
  EXPECT_TRUE(nccl_symm_kernels_off("2.28.9", false).empty()) << "2.28 runs them over PCIe";
  EXPECT_TRUE(nccl_symm_kernels_off("2.29.1", false).empty());
  EXPECT_NE(nccl_symm_kernels_off("2.29.2", false).find("only when every GPU pair is NVLink-connected"), std::string::npos);
  EXPECT_FALSE(nccl_symm_kernels_off("2.30.7", false).empty());
  EXPECT_TRUE(nccl_symm_kernels_off("2.30.7", true).empty()) << "an all-NVLink box keeps them";
  EXPECT_TRUE(nccl_symm_kernels_off("", false).empty()) << "an unknown version claims nothing";
}

TEST(NcclCaseLabels, NcclSymmIsLabelledOnPcieWithANewerNccl) {
  NcclCaseLabels labels(0, "");
  labels.set_facts("2.29.2", {{4, false}, {8, true}});
  std::ostringstream warn;
  CaseResult pcie, nvlink, plain;
  pcie.c = *Case::parse("allreduce/nccl-symm/bf16/gpus:4/bytes:4096");
  nvlink.c = *Case::parse("allreduce/nccl-symm/bf16/gpus:8/bytes:4096");
  plain.c = *Case::parse("allreduce/nccl/bf16/gpus:4/bytes:4096");
  for (CaseResult* r : {&pcie, &nvlink, &plain}) labels.label(*r, warn);
  ASSERT_EQ(pcie.settings.size(), 1u);
  EXPECT_EQ(pcie.settings[0].first, "nccl_symm_kernels");
  EXPECT_EQ(pcie.settings[0].second.rfind("off: NCCL 2.29.2", 0), 0u) << pcie.settings[0].second;
  EXPECT_TRUE(nvlink.settings.empty());
  EXPECT_TRUE(plain.settings.empty());
  EXPECT_EQ(nccl_label_footer({pcie, nvlink, plain}).size(), 1u);
}

}  // namespace
}  // namespace arbench
