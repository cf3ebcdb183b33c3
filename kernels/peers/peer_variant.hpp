// PeerVariant: what the three peer adapters (flashinfer_pcie_ipc.cu, flashinfer_fusion.cu,
// vllm_custom_ar.cu) share on the host: where they run (GPU fabrics with peer memory), their
// limits as skip reasons, the residency check on the single-GPU fabric, the settings a case
// records (whose code, which copy, which configuration), and the launch error turned into a
// CaseError. CUDA library only (it asks the runtime about the device).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/core/peers.hpp"
#include "arbench/variant.hpp"
#include "kernels/gpu_variant.hpp"
#include "kernels/peers/peer_text.hpp"

namespace arbench {

class PeerVariant : public Variant {
 public:
  PeerVariant(PeerKind kind, std::string config) : kind_(kind), config_(std::move(config)) {}

  Support supports(const Case& c, const Fabric& f) const override { return supports_with(c, f, Tuning{}); }
  Support supports_with(const Case& c, const Fabric& f, const Tuning& t) const override {
    if (f.backend() == Backend::host)
      return Support::no(std::string(name()) + " runs on GPUs only: it is " + peer_text(kind_).project +
                         "'s kernel, which has no host twin");
    if (std::string why = f.symmetric_unsupported_reason(); !why.empty()) return Support::no(why);
    if (Support s = limits(c, f, t); !s.ok) return s;
    return fits_device(c, f, t);
  }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    std::vector<std::pair<std::string, std::string>> s = {{"peer", peer_text(kind_).project},
                                                          {"peer_source", source()}};
    for (auto& kv : launch_settings()) s.push_back(std::move(kv));
    return s;
  }

 protected:
  const char* name() const { return peer_text(kind_).name; }
  // The peer's own limits (peer_policy.hpp), for this configuration and --blocks, on `f`'s GPUs.
  virtual Support limits(const Case& c, const Fabric& f, const Tuning& t) const = 0;
  // Whether the launch fits the fabric's devices: on the single-GPU fabric every rank's blocks
  // must be resident at once (the ranks wait on each other), which the peer's own grid may not.
  virtual Support fits_device(const Case& c, const Fabric& f, const Tuning& t) const = 0;
  // What the case records of its launch (schedule, grid, the choice made).
  virtual std::vector<std::pair<std::string, std::string>> launch_settings() const = 0;

  // Where this peer's code came from: the copy's project, version, commit and origin.
  std::string source() const {
    const PeerBuild& b = peer_build();
    if (kind_ == PeerKind::vllm_custom && b.vllm_from.rfind("FlashInfer", 0) != 0) return b.vllm_from;
    for (const PeerSource& s : b.sources)
      if (s.project == "FlashInfer")
        return peer_source_text(s, true) + (kind_ == PeerKind::vllm_custom ? ", its copy of vLLM's kernel" : "");
    return "unknown";
  }

  // The compute capability of the fabric's GPUs as major x 10 + minor (120 for 12.0), as vLLM keys
  // its tables (DeviceCapability.to_int()).
  static int capability(const Fabric& f) {
    int major = 0, minor = 0;
    ARB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, f.device_of(0)));
    ARB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, f.device_of(0)));
    return major * 10 + minor;
  }
  // Blocks of `threads` a device holds at once for `kernel`, all SMs together.
  static int resident_blocks(const Fabric& f, const void* kernel, int threads) {
    int per_sm = 0, current = 0;
    ARB_CUDA_CHECK(cudaGetDevice(&current));
    ARB_CUDA_CHECK(cudaSetDevice(f.device_of(0)));
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
    ARB_CUDA_CHECK(cudaSetDevice(current));
    ARB_CUDA_CHECK(e);
    return per_sm * device_sms(f);
  }
  // On a fabric whose ranks share a device: yes when `world` x `blocks` fit `resident`.
  Support resident_or_why(const Fabric& f, int blocks, int resident, const std::string& what) const {
    const int sharing = f.ranks_per_device();
    if (sharing <= 1 || sharing * blocks <= resident) return Support::yes();
    return Support::no(std::string(name()) + " launches " + what + " per rank: " + std::to_string(sharing) +
                       " ranks on one GPU need " + std::to_string(sharing * blocks) + " blocks resident at once, the GPU " +
                       "holds " + std::to_string(resident) + " (its ranks wait on each other; run it on the cuda backend)");
  }
  // A launch's error as a CaseError naming the peer.
  void check_launch(cudaError_t e, const char* what) const {
    if (e != cudaSuccess)
      throw CaseError(std::string(name()) + ": " + what + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
  }

  PeerKind kind_;
  std::string config_;  // "" as the peer selects; else the forced configuration
};

// The adapters' factories (each in the translation unit that includes its peer's header).
std::unique_ptr<Variant> make_flashinfer_pcie_ipc(const std::string& config);
std::unique_ptr<Variant> make_flashinfer_fusion(const std::string& config);
std::unique_ptr<Variant> make_vllm_custom(const std::string& config);

}  // namespace arbench
