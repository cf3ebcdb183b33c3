// How a fabric of several GPUs in one process settles what its peer paths are, whether or not its
// own symmetric memory could be set up (host logic; the GPU fabrics pass their CUDA halves in).
//
// The functional peer check (peer_check.hpp) runs through the fabric's own mappings when they
// exist (NCCL windows, the cuda provider's arena). When they do not (a pair without P2P refused
// the arena; NCCL refused windows because not every pair is CUDA-P2P, init.cc isAllCudaP2p in
// NCCL 2.28.9), the custom kernels are off anyway, but `nccl` and the island variants still use
// the pairs that CUDA reports: so the same check then runs on bare devices (cudaMalloc memory
// with cudaDeviceEnablePeerAccess, what `arbench topo` shows), and its matrix is kept. A pair is
// a path (peer_reaches) only where a check moved its data; cudaDeviceCanAccessPeer alone is never
// trusted for that.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "arbench/core/peer_access.hpp"
#include "arbench/fabric.hpp"

namespace arbench {

// The matrix of a check, and whether its probes all finished (a stuck probe's memory must stay).
struct CheckedPeers {
  PeerAccess access;
  bool idle = true;
  std::string fatal;  // what a GPU reported when it faulted for good ("" when none did)
};

struct FabricPeerCheck {
  int world = 0;
  // Why the fabric's symmetric memory could not be set up before any check ("" when it was).
  std::string setup_failure;
  // The probe memory in the fabric's own symmetric memory; throws Error when it cannot be mapped.
  std::function<std::unique_ptr<RankBuffers>()> map_probe_memory;
  // The check through that memory.
  std::function<CheckedPeers(const RankBuffers&)> check_mapped;
  // The check on bare devices; empty where there is none (one GPU per process).
  std::function<CheckedPeers()> check_bare;
};

struct PeerCheckOutcome {
  PeerAccess access;             // n == 0 only where no check could run
  std::string symmetric_reason;  // why symmetric memory is off ("" when it is on)
  bool stuck = false;            // a probe through the fabric's memory never finished
  std::unique_ptr<RankBuffers> probe_memory;  // kept while `stuck` (a kernel may still touch it)
};

// Runs the check through the fabric's memory, or on bare devices when that memory cannot be had.
// A bare check that cannot run at all leaves every pair broken with why. Throws EnvironmentError
// (the run must end, with what it measured) when a GPU faulted for good (CheckedPeers::fatal).
PeerCheckOutcome run_fabric_peer_check(const FabricPeerCheck& how);

// Whether `rank` can load from and store to `peer` directly: only where the check moved the data.
bool peer_reaches(const PeerAccess* checked, int rank, int peer);

// The message of the run-ending error after a fatal fault during the check.
std::string fatal_fault_message(const std::string& fatal);

}  // namespace arbench
