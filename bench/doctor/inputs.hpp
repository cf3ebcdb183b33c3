// What the doctor's checks read. The host-only checks read the box below `root` (sysfs, /proc)
// themselves; what needs a library or a GPU (NVML, CUDA, NCCL, the probes) is asked by
// bench/cmd_doctor.cpp and handed in here, so every check runs on fixture trees and fixed figures
// in the tests (tests/host/doctor/).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/peer_access.hpp"
#include "doctor/collapse.hpp"
#include "settings/catalogue/stack_versions.hpp"
#include "topo/topology.hpp"

namespace arbench::doctor {

// NVML's P2P status codes (nvmlGpuP2PStatus_t): 0 OK, 1 chipset not supported, 2 GPU not
// supported, 3 IOH topology not supported, 4 disabled by regkey, 5 not supported, 6 unknown.
const char* nvml_p2p_status_name(int status);

struct NvmlGpu {
  std::optional<bool> persistence;
  std::optional<std::uint64_t> bar1_bytes, memory_bytes;
};

// What NVML said; `loaded` false with `why` when libnvidia-ml could not be used.
struct NvmlFacts {
  bool loaded = false;
  std::string why;
  std::optional<std::string> driver_version;
  std::map<std::string, NvmlGpu> gpus;  // by normalized bus id
  // (bus a, bus b) -> {read status, write status}, a reading b.
  std::map<std::pair<std::string, std::string>, std::pair<std::optional<int>, std::optional<int>>> p2p;
};

// The functional peer-to-peer check on the GPUs (kernels/fabric/host/peer_check), when it ran.
struct FunctionalP2p {
  bool ran = false;
  std::string why;                  // why not
  std::vector<std::string> bus_ids;  // row/column i of `access`
  PeerAccess access;
};

struct Inputs {
  std::filesystem::path root = "/";  // sysfs and /proc live below it (sys/, proc/)
  topo::Topology topo;               // read_sysfs_topology(root)
  NvmlFacts nvml;
  FunctionalP2p functional;
  std::map<std::string, std::string> env;  // NCCL_P2P_LEVEL, NCCL_P2P_DISABLE as set
  StackVersions stack;                     // the versions the user named or a Python probe found
  std::string arbench_nccl;                // the NCCL arbench itself loads ("2.28.9"), or empty
  // `lspci -vvv -s BDF`'s output for a bridge whose ACS the config file does not show (non-root);
  // empty function: lspci is not consulted (fixture trees, or lspci missing).
  std::function<std::optional<std::string>(const std::string& bdf)> lspci;
  // The posted-write collapse probe's figures, or why it did not run.
  std::optional<CollapseFigures> probe;
  std::string probe_skipped;
};

// Reads the host-only inputs below `root`: the topology. The rest is left as "not asked".
Inputs host_inputs(const std::filesystem::path& root);

}  // namespace arbench::doctor
