// NcclFabric: one rank per GPU, driven by one host thread, with one NCCL communicator per
// rank (ncclCommInitAll). Symmetric memory comes from NCCL 2.28's own API (nccl_windows.hpp);
// ncclDevCommCreate is the capability probe (it fails when the GPUs lack P2P), run only when the
// loaded library has the major.minor of the headers arbench was built with (nccl_version.hpp).
//
// NCCL reads NCCL_ALGO / NCCL_PROTO when a communicator is created, so each NCCL
// configuration (`nccl[ring/ll]`) gets its own fabric, created with those variables set.
// setenv is not safe while another thread may read the environment, so such a fabric is only
// created while no other communicator (and so none of NCCL's threads) exists: FabricCache
// releases the others first (bench/measure/harness.hpp).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"

namespace arbench {

class NcclFabric final : public CudaFabric {
 public:
  // `env`: NCCL_* variables set while the communicators are created (then restored).
  NcclFabric(int world, double timeout_s, std::map<std::string, std::string> env = {});
  ~NcclFabric() override;
  Backend backend() const override { return Backend::cuda; }
  std::string describe() const override;
  std::string symmetric_unsupported_reason() const override { return symmetric_reason_; }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  void* nccl_comm(int rank) const override { return comms_.at(rank); }
  // ncclCommAbort on every communicator: NCCL kernels waiting for a lost peer end.
  void abort() override;
  const std::map<std::string, std::string>& env() const { return env_; }

 protected:
  void begin_op_group() override;
  void end_op_group() override;

 private:
  void probe_symmetric();

  const NcclApi& api_;
  std::vector<ncclComm_t> comms_;
  std::map<std::string, std::string> env_;
  std::string symmetric_reason_;
};

}  // namespace arbench
