// The NCCL labels for real (run/nccl_case_labels.hpp): `nccl[ring/simple/ch:64]` asks for more
// channels than a communicator of 1 or 2 PCIe GPUs sets up, so its cases record the count they
// ran on, read from NCCL's own INIT log, and are marked clamped; `nccl-symm` is labelled exactly
// when the loaded NCCL is 2.29.2 or later and the GPUs are not all NVLink-connected.
// Skips without a GPU and NCCL.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "measure/nccl/nccl_symm_kernels.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

std::string run_output(const std::string& command, int& rc) {
  std::string output;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) {
    rc = -1;
    return output;
  }
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) output.append(buf, n);
  const int status = pclose(p);
  rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

TEST(NcclLabelsGpu, AChannelCountAboveTheCommunicatorsIsRecordedAsClamped) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  const std::string w = std::to_string(devices >= 2 ? 2 : 1);
  const std::string out = ::testing::TempDir() + "arbench_nccl_labels_" + std::to_string(getpid()) + ".json";
  int rc = 0;
  // NCCL_DEBUG unset: arbench's child sends NCCL's INIT log to a file of its own.
  const std::string text = run_output(
      "env -u NCCL_DEBUG -u NCCL_DEBUG_SUBSYS -u NCCL_DEBUG_FILE " + std::string(ARBENCH_EXE) +
          " run --backend cuda --gpus " + w + " --variants 'nccl[ring/simple/ch:64],nccl-symm' -b 4K -e 32K -f 8 "
          "--warmup 2 --samples 5 --pipelined-ops 0 --timeout 20 -q --out " + out,
      rc);
  ASSERT_EQ(rc, 0) << text;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto& prov = doc["arbench"]["provenance"];
  const bool nvlink = prov["nvlink_all_pairs"].value(w, false);
  const bool symm_off = !arbench::nccl_symm_kernels_off(prov["nccl_version"].get<std::string>(), nvlink).empty();
  int channel_cases = 0;
  for (const auto& c : doc["arbench"]["cases"]) {
    const auto settings = c.value("settings", nlohmann::json::object());
    if (c["variant"] == "nccl[ring/simple/ch:64]") {
      ++channel_cases;
      ASSERT_TRUE(settings.contains("nccl_channels_run")) << c.dump();
      const int ran = std::stoi(settings["nccl_channels_run"].get<std::string>());
      EXPECT_GE(ran, 1);
      EXPECT_LT(ran, 64) << "no PCIe communicator of 1-2 GPUs has 64 channels";
      EXPECT_TRUE(settings.contains("nccl_channels_clamped")) << c.dump();
    } else {
      EXPECT_EQ(settings.contains("nccl_symm_kernels"), symm_off) << c.dump();
    }
  }
  EXPECT_EQ(channel_cases, 2);  // 4K, 32K
  EXPECT_NE(text.find("asked for more channels than the communicator has"), std::string::npos) << text;
  std::filesystem::remove(out);
}

}  // namespace
