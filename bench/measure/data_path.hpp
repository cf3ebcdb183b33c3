// The data path of a case: how its variant's data moved between the ranks (docs/method.md, "Data
// path per variant"), recorded in every case (CaseResult::data_path). arbench's own kernels load
// and store through peer mappings; NCCL picks a transport per GPU pair. Host logic, tested on
// fixture trees (tests/host/measure/test_data_path.cpp).
//
// NCCL's rule (NCCL 2.28.9, src/graph/paths.cc, ncclTopoCheckP2p): two GPUs of one node use P2P
// when the PCIe path between them is no farther than the P2P level, and go through host memory
// (the SHM transport) otherwise. The level is PXB by default — across PCIe switches, but not
// through a CPU's host bridge — or SYS on AMD x86 CPUs with at most two GPUs; NCCL_P2P_LEVEL
// (LOC, NVL, PIX, PXB, PHB, SYS, or the old numbers 0-5) overrides it, and NCCL_P2P_DISABLE=1 turns
// P2P off. So on a box whose GPUs hang off different root ports NCCL goes through host memory
// while arbench's own kernels load and store peer-to-peer: the comparison is not like for like.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"
#include "topo/relation.hpp"

namespace arbench {

// What the harness knows without the topology: "host memory (CPU threads)", "shared memory (one
// process per rank)", "one GPU's memory (virtual ranks)", "P2P load/store", or "NCCL" (refined
// from the PCIe tree by nccl_data_path where the run knows the tree).
std::string data_path_of(const Fabric& f, const Variant& v);


enum class NcclTransport { p2p, shm };

// NCCL's path type of a relation: PIX 4, PXB 5, PHB 8 (PHB and NODE: through a host bridge of
// one CPU), SYS 9.
int nccl_path_type(topo::Relation r);
// The P2P level NCCL uses with `env` (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL), and whether the CPU is
// AMD x86 with at most two GPUs in the system.
int nccl_p2p_level(const std::map<std::string, std::string>& env, bool amd_at_most_two_gpus);
NcclTransport nccl_pair_transport(topo::Relation r, int p2p_level);

// The case's data path over its GPUs' relation matrix: "NCCL P2P", "NCCL SHM (through host
// memory)" or "NCCL P2P + SHM (k of n pairs through host memory)"; "NCCL NVLink" when
// `all_nvlink`.
std::string nccl_data_path(const std::vector<std::vector<topo::Relation>>& rel, const std::map<std::string, std::string>& env,
                           bool amd_at_most_two_gpus, bool all_nvlink = false);

// Whether this machine's CPU is AMD x86 (/proc/cpuinfo vendor_id AuthenticAMD under `root`).
bool amd_cpu(const std::string& root = "/");

}  // namespace arbench
