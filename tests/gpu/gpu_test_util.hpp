// When a GPU test runs, skips or fails. Skips must never hide a failure: a GPU test skips only
// where no GPU exists. A machine has a GPU when it has an NVIDIA GPU device node (/dev/nvidia0,
// /dev/nvidia1, ...; /dev/nvidiactl and /dev/nvidia-uvm alone are not GPUs) or `nvidia-smi -L`
// lists one. There, a CUDA runtime that cannot be initialised FAILS the test with CUDA's error,
// and so does an NCCL that cannot be loaded (tests that need NCCL). The one deliberate way to
// hide the GPUs is CUDA_VISIBLE_DEVICES set to nothing or -1: that skips, saying so.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "arbench/fabric.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"

namespace arbench::testing {

// The evidence that this machine has a GPU ("" when none): the first GPU device node under
// `dev_dir`, else the first GPU line of `nvidia-smi -L` (not run when `run_nvidia_smi` is false).
inline std::string gpu_presence_evidence(const std::string& dev_dir = "/dev", bool run_nvidia_smi = true) {
  std::error_code ec;
  static const std::regex gpu_node("nvidia[0-9]+");
  for (const auto& e : std::filesystem::directory_iterator(dev_dir, ec))
    if (std::regex_match(e.path().filename().string(), gpu_node)) return e.path().string();
  if (!run_nvidia_smi) return {};
  FILE* p = popen("nvidia-smi -L 2>/dev/null", "r");
  if (p == nullptr) return {};
  std::string found;
  char line[512];
  while (found.empty() && std::fgets(line, sizeof line, p) != nullptr)
    if (std::string(line).rfind("GPU ", 0) == 0) found = "nvidia-smi -L: " + std::string(line);
  pclose(p);
  while (!found.empty() && (found.back() == '\n' || found.back() == '\r')) found.pop_back();
  return found;
}

struct GateInputs {
  int needed = 1;               // GPUs the test needs
  std::string evidence;         // gpu_presence_evidence()
  cudaError_t cuda = cudaSuccess;  // cudaGetDeviceCount's result
  int count = 0;                // and its count
  std::string visible_devices;  // CUDA_VISIBLE_DEVICES ("" when unset)
  bool visible_devices_set = false;
  bool needs_nccl = false;
  bool nccl_ok = true;
  std::string nccl_reason;
};

enum class Gate { run, skip, fail };
struct GateVerdict {
  Gate gate = Gate::run;
  std::string why;
};

inline GateVerdict gate_verdict(const GateInputs& in) {
  const bool hidden = in.visible_devices_set && (in.visible_devices.empty() || in.visible_devices == "-1");
  if (in.cuda != cudaSuccess || in.count == 0) {
    const std::string error = in.cuda != cudaSuccess ? std::string(cudaGetErrorName(in.cuda)) + ": " +
                                                           cudaGetErrorString(in.cuda)
                                                     : std::string("the driver reports 0 devices");
    if (hidden) return {Gate::skip, "CUDA_VISIBLE_DEVICES='" + in.visible_devices + "' hides every GPU (" + error + ")"};
    if (in.evidence.empty()) return {Gate::skip, "no GPU on this machine (" + error + ")"};
    return {Gate::fail, "this machine has a GPU (" + in.evidence + ") but CUDA cannot use it: " + error +
                            ". Check the driver (nvidia-smi) and that it is new enough for this CUDA runtime."};
  }
  if (in.count < in.needed)
    return {Gate::skip, "needs " + std::to_string(in.needed) + " GPU(s), found " + std::to_string(in.count)};
  if (in.needs_nccl && !in.nccl_ok)
    return {Gate::fail, "this machine has " + std::to_string(in.count) + " GPU(s) but NCCL cannot be loaded: " +
                            in.nccl_reason + ". Install NCCL >= 2.28 (libnccl.so.2) or point LD_LIBRARY_PATH at it."};
  return {};
}

// The verdict for this machine.
inline GateVerdict gpu_gate(int needed, bool needs_nccl = false, const std::string& dev_dir = "/dev") {
  GateInputs in;
  in.needed = needed;
  in.cuda = cudaGetDeviceCount(&in.count);
  if (in.cuda != cudaSuccess) {
    (void)cudaGetLastError();
    in.count = 0;
  }
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    in.visible_devices_set = true;
    in.visible_devices = v;
  }
  // Only looked for when CUDA found nothing: the common cases never fork nvidia-smi.
  if (in.count == 0) in.evidence = gpu_presence_evidence(dev_dir);
  in.needs_nccl = needs_nccl;
  if (needs_nccl && in.count >= needed) {
    in.nccl_ok = NcclApi::available();
    in.nccl_reason = NcclApi::version_or_reason();
  }
  return gate_verdict(in);
}

// Whether a GPU test may skip one case the harness did not plan (`reason`): only when CUDA itself
// says a pair among the case's first `world` GPUs has no peer access (can_access[a][b] == 0,
// cudaDeviceCanAccessPeer): the custom kernels need P2P, and such a box cannot run them. Returns
// that pair ("GPU a cannot reach GPU b") as the skip's evidence, or "" when the skip is not
// verified: every pair reports P2P, so the case should have run and the test must fail with
// `reason` (a broken peer check, NCCL refusing its windows, a bug) instead of hiding it.
inline std::string verified_p2p_skip(const std::vector<std::vector<int>>& can_access, int world) {
  for (int a = 0; a < world && a < int(can_access.size()); ++a)
    for (int b = 0; b < world && b < int(can_access[std::size_t(a)].size()); ++b)
      if (a != b && can_access[std::size_t(a)][std::size_t(b)] == 0)
        return "GPU " + std::to_string(a) + " cannot reach GPU " + std::to_string(b) + " (cudaDeviceCanAccessPeer)";
  return {};
}

// The GPUs a test may use: CUDA's count (0 without a driver), at most kMaxRanks.
inline int usable_gpus() { return std::min(cuda_device_count(), kMaxRanks); }

// cudaDeviceCanAccessPeer of the first `n` GPUs.
inline std::vector<std::vector<int>> peer_access_matrix(int n) {
  std::vector<std::vector<int>> m(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), 1));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && cudaDeviceCanAccessPeer(&m[std::size_t(a)][std::size_t(b)], a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        m[std::size_t(a)][std::size_t(b)] = 1;  // unknown: never evidence for a skip
      }
  return m;
}

}  // namespace arbench::testing

#define ARB_GPU_GATE_(n, nccl)                                                     \
  do {                                                                             \
    const auto arb_gate_ = ::arbench::testing::gpu_gate((n), (nccl));              \
    if (arb_gate_.gate == ::arbench::testing::Gate::fail) FAIL() << arb_gate_.why; \
    if (arb_gate_.gate == ::arbench::testing::Gate::skip) GTEST_SKIP() << arb_gate_.why; \
  } while (0)

// Skip without n GPUs; fail when a GPU exists but CUDA cannot use it.
#define ARB_REQUIRE_GPUS(n) ARB_GPU_GATE_((n), false)
// The same, and fail when the GPUs are there but NCCL cannot be loaded.
#define ARB_REQUIRE_GPUS_AND_NCCL(n) ARB_GPU_GATE_((n), true)
