// The gate every GPU test passes first (gpu_test_util.hpp): skip only where no GPU exists;
// fail, with the error, where a GPU exists but CUDA cannot use it or NCCL cannot be loaded.
// These tests need no device and never skip: they run on every machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpu_test_util.hpp"

namespace arbench::testing {
namespace {

namespace fs = std::filesystem;

// A fake /dev holding `nodes`.
std::string fake_dev(const std::string& tag, std::initializer_list<const char*> nodes) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("arbench-dev-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* n : nodes) std::ofstream(dir / n).put('\0');
  return dir.string();
}

TEST(GpuGate, DeviceNodesThatAreGpus) {
  EXPECT_EQ(gpu_presence_evidence(fake_dev("none", {"null", "nvidiactl", "nvidia-uvm", "nvidia-modeset"}), false), "");
  const std::string dev = fake_dev("gpu", {"nvidiactl", "nvidia3"});
  EXPECT_EQ(gpu_presence_evidence(dev, false), dev + "/nvidia3");
}

TEST(GpuGate, VerdictsFromWhatTheMachineSays) {
  GateInputs none;
  none.cuda = cudaErrorNoDevice;
  EXPECT_EQ(gate_verdict(none).gate, Gate::skip);  // no GPU anywhere: skip

  GateInputs broken = none;  // a GPU box whose driver CUDA cannot use
  broken.cuda = cudaErrorInsufficientDriver;
  broken.evidence = "/dev/nvidia0";
  const GateVerdict v = gate_verdict(broken);
  EXPECT_EQ(v.gate, Gate::fail);
  EXPECT_NE(v.why.find("/dev/nvidia0"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("cudaErrorInsufficientDriver"), std::string::npos) << v.why;

  GateInputs hidden = broken;  // the user hid the GPUs on purpose
  hidden.visible_devices_set = true;
  hidden.visible_devices = "";
  EXPECT_EQ(gate_verdict(hidden).gate, Gate::skip);

  GateInputs one;
  one.count = 1;
  one.needed = 2;
  EXPECT_EQ(gate_verdict(one).gate, Gate::skip);  // too few GPUs: skip
  one.needed = 1;
  EXPECT_EQ(gate_verdict(one).gate, Gate::run);

  GateInputs no_nccl = one;  // GPUs, but NCCL cannot be loaded
  no_nccl.needs_nccl = true;
  no_nccl.nccl_ok = false;
  no_nccl.nccl_reason = "libnccl.so.2: cannot open shared object file";
  const GateVerdict n = gate_verdict(no_nccl);
  EXPECT_EQ(n.gate, Gate::fail);
  EXPECT_NE(n.why.find("libnccl.so.2"), std::string::npos) << n.why;
}

TEST(GpuGate, ThisMachineWithAPlantedGpuNodeFailsUnlessCudaWorks) {
  // A GPU device node planted in a fake /dev: where CUDA works that is a GPU box (run); where it
  // does not (this CI machine: no driver), the gate must fail with CUDA's error, never skip.
  const GateVerdict v = gpu_gate(1, false, fake_dev("planted", {"nvidia0"}));
  int count = 0;
  const bool cuda_ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();
  if (cuda_ok) {
    EXPECT_EQ(v.gate, Gate::run) << v.why;
  } else if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES"); vis != nullptr && (*vis == '\0' || std::string(vis) == "-1")) {
    EXPECT_EQ(v.gate, Gate::skip) << v.why;
  } else {
    EXPECT_EQ(v.gate, Gate::fail) << v.why;
    EXPECT_NE(v.why.find("CUDA cannot use it"), std::string::npos) << v.why;
  }
}

// A GPU test skips a case only for a verified missing-P2P reason (verified_p2p_skip); any other
// reason the harness gives for not running a case fails the test. Before, the first unplanned case
// skipped the whole test, whatever the reason (a broken window registration looked like a skip).
TEST(GpuCaseSkip, OnlyAPairCudaReportsWithoutP2pIsAReasonToSkip) {
  const std::vector<std::vector<int>> all = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
  EXPECT_EQ(verified_p2p_skip(all, 3), "") << "every pair reports P2P: a case that did not run is a failure";
  std::vector<std::vector<int>> missing = all;
  missing[2][0] = 0;
  EXPECT_EQ(verified_p2p_skip(missing, 3), "GPU 2 cannot reach GPU 0 (cudaDeviceCanAccessPeer)");
  EXPECT_EQ(verified_p2p_skip(missing, 2), "") << "GPUs 0 and 1 reach each other: world 2 must run";
}

}  // namespace
}  // namespace arbench::testing
