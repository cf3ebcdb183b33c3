// NcclFabric: one rank per GPU, driven by one host thread, with one NCCL communicator per
// rank (ncclCommInitRankConfig of every rank in one group, as ncclCommInitAll does). Symmetric
// memory comes from NCCL 2.28's own API (nccl_windows.hpp); ncclDevCommCreate is the capability
// probe (it fails when the GPUs lack P2P), run only when the loaded library has the major.minor of
// the headers arbench was built with (nccl_version.hpp), and its LSA team must be the world
// (lsa_team.hpp). Then the functional peer check (kernels/fabric/host/peer_check/peer_check.hpp) moves a
// pattern through every pair's window mapping: a pair that reports P2P but whose data does not
// arrive turns symmetric memory off (the custom kernels skip, naming the pair) and the start gate
// falls back to the host word. Where there are no windows, the check runs on bare devices instead.
//
// Every NCCL call that blocks without a bound of its own (creating the communicators, the grouped
// setup inside ncclGroupEnd, NCCL's connection setup at an op's ncclGroupEnd) runs under the
// fabric's watchdog (watchdog.hpp). A failed grouped setup call leaves the fabric unusable
// (Fabric::unusable_reason): the harness replaces it.
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

#include "arbench/core/peer_access.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/watchdog.hpp"

namespace arbench {

class NcclFabric final : public CudaFabric {
 public:
  // `env`: NCCL_* variables set while the communicators are created (then restored).
  // `planted`: the test seam's broken pair (the peer check sees its data go elsewhere). `api`: the
  // NCCL-API library whose communicators these are (nullptr: the default, NcclApi::get; another:
  // a library measured beside it, nccl_libraries.hpp).
  NcclFabric(int world, double timeout_s, std::map<std::string, std::string> env = {}, BrokenPair planted = {},
             const NcclApi* api = nullptr);
  ~NcclFabric() override;
  Backend backend() const override { return Backend::cuda; }
  std::string describe() const override;
  void* nccl_comm(int rank) const override { return comms_.at(rank); }
  // ncclCommAbort on every communicator: NCCL kernels waiting for a lost peer end.
  void abort() override;
  std::string unusable_reason() const override { return unusable_; }
  const std::map<std::string, std::string>& env() const { return env_; }

 protected:
  // NCCL symmetric windows (nccl_windows.hpp); a failed registration makes the fabric unusable.
  std::unique_ptr<RankBuffers> alloc_symmetric(std::size_t bytes) override;
  void begin_op_group() override;
  void end_op_group() override;
  void abandon_op_group() override;

 private:
  void create_communicators();
  // After a failed grouped setup call: aborts the communicators (their queued calls go with
  // them) and creates fresh ones.
  void recreate_communicators();
  void probe_symmetric();
  // The functional peer check through a probe window (words and bulk transfers); a broken pair
  // turns symmetric memory off. Without windows, the same check on bare devices (peer_fallback.hpp):
  // its matrix is kept, so `nccl` and the island variants still skip or route around a broken pair.
  void check_peers();

  const NcclApi& api_;
  std::vector<ncclComm_t> comms_;
  std::map<std::string, std::string> env_;
  BrokenPair planted_;
  std::string unusable_;  // why this fabric must be replaced (Fabric::unusable_reason)
  std::unique_ptr<Watchdog> dog_;  // bounds the blocking NCCL calls
};

}  // namespace arbench
