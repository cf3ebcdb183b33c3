// NcclProcessFabric: the cuda backend with one process per GPU (mpirun / srun, one World rank per
// process; docs/multi-process.md). The process drives one rank on the GPU of its node-local rank
// (process_gpu.hpp); one NCCL communicator spans the processes (ncclGetUniqueId on process 0,
// broadcast over the World, ncclCommInitRankConfig). On one node the symmetric buffers are NCCL
// windows whose LSA pointers reach the other processes' GPU memory, so the custom kernels run
// unchanged and the start gate's device barrier works as in one process. Across nodes the
// custom kernels (and nccl-symm) are skipped with the reason: their peers must be reachable by
// load and store. Every step of the setup is agreed over the World: all processes get the same
// fabric, or the same error; the processes agree that all are ready before each NCCL collective
// setup call, and the watchdog (watchdog.hpp) bounds those calls. The functional peer check runs
// across the processes too.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "arbench/core/peer_access.hpp"
#include "arbench/world.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/watchdog.hpp"

namespace arbench {

class NcclProcessFabric final : public CudaFabric {
 public:
  // Collective. `env`: NCCL_* variables set while the communicator is created; `planted`: the
  // test seam's broken pair (the peer check sees its data go elsewhere).
  // `api`: the NCCL-API library (nullptr: the default; nccl_fabric.hpp).
  NcclProcessFabric(World& processes, double timeout_s, std::map<std::string, std::string> env = {},
                    BrokenPair planted = {}, const NcclApi* api = nullptr);
  ~NcclProcessFabric() override;
  Backend backend() const override { return Backend::cuda; }
  std::string describe() const override;
  // This process's communicator, whichever rank is asked about (the nccl variants tell a cuda
  // fabric by rank 0's, and launch only the rank this process drives).
  void* nccl_comm(int /*rank*/) const override { return comm_; }
  void abort() override;
  std::string unusable_reason() const override { return unusable_; }

 protected:
  // The op's collective is grouped, so NCCL's connection setup happens at the group's end, where
  // the watchdog bounds it and the processes agree first that every launch went in.
  void begin_op_group() override;
  void end_op_group() override;
  void abandon_op_group() override;
  // Windows of comm_ (nccl_windows.hpp); a registration that failed on some process makes the
  // fabric unusable (the others' went in).
  std::unique_ptr<RankBuffers> alloc_symmetric(std::size_t bytes) override;

 private:
  void create_communicator(World& w);
  // Why the custom kernels cannot run across these processes (empty when they can). Collective.
  std::string symmetric_problem(World& w);
  void check_peers(World& w);

  const NcclApi& api_;
  ncclComm_t comm_ = nullptr;
  std::map<std::string, std::string> env_;
  BrokenPair planted_;
  std::string unusable_;  // why this fabric must be replaced (Fabric::unusable_reason)
  std::unique_ptr<Watchdog> dog_;  // bounds the blocking NCCL calls
};

}  // namespace arbench
