// Provenance: the facts that make a result reproducible and two results comparable, and the
// fingerprint (a hash of hardware and stack together, as results have always carried it; `settings`
// checks it). `compare` and the nightly name a machine by its hardware alone and diff the stack
// beside it: results/machine_stack.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbench/core/peers.hpp"

namespace arbench {

struct GpuInfo {
  int index = 0;
  std::string name, cc, pci_bus_id;
  int sm_clock_mhz = 0, mem_clock_mhz = 0;
};

// How the run was launched: one process driving every rank, or one process per rank under
// mpirun / srun (docs/multi-process.md).
struct LaunchInfo {
  std::string launcher = "none";          // "none", "mpirun" or "srun"
  int processes = 1;
  std::vector<std::string> hosts;         // one per node, in node order (nodes = hosts.size())
  std::vector<int> processes_per_node;    // parallel to hosts
};

// One NCCL-API library of a run with --nccl-lib (docs/output.md, `nccl_libraries`): the default
// first (variant `nccl`, label ""), then each library measured beside it (`nccl@<label>`).
struct NcclLibraryInfo {
  std::string variant, label;      // "nccl@2.29.2", "2.29.2"; "nccl", "" for the default
  std::string version;             // "2.29.2", from its ncclGetVersion
  std::string path, file;          // as named; the file the loader mapped
  std::string build_id;            // its ELF build id (hex), "" when it has none
  std::uint64_t size_bytes = 0;
  bool named = false;              // the label was given (NAME=PATH), not the version
};

struct Provenance {
  std::string arbench_version, arbench_revision, command_line;
  std::string backend, timing;  // timing: "gpu" (CUDA events) or "cpu" (steady_clock)
  std::vector<GpuInfo> gpus;
  std::string driver, cuda_runtime, nccl_version;
  std::string nccl_library;  // the NCCL library arbench loaded (cuda backend), "" when none
  std::vector<std::pair<std::string, std::string>> nccl_env;  // every NCCL_* variable
  // The CUDA variables arbench sets or honours (CUDA_MODULE_LOADING, CUDA_DEVICE_MAX_CONNECTIONS,
  // CUDA_VISIBLE_DEVICES), when set.
  std::vector<std::pair<std::string, std::string>> cuda_env;
  std::string host_name, cpu_model;
  LaunchInfo launch;
  // With --nccl-lib (cuda backend): every NCCL library of the run, the default first; written as
  // `nccl_libraries` only then. `nccl_version` / `nccl_library` (and the stack) stay the default's.
  std::vector<NcclLibraryInfo> nccl_libraries;
  // The peers built into this arbench (docs/variants.md, "Peers"): each copy of another project's
  // code, its version or commit and the SHA256 of every header compiled in (arbench/core/peers.hpp).
  std::vector<PeerSource> peers;
};

// "FlashInfer 0.6.18 fb28d7242b35; vLLM ..." (the stack's `peers`: versions and commits, not where
// the copy lay); "" when no peer is built.
std::string peers_stack_text(const std::vector<PeerSource>& peers);

// Host facts (version, revision, host, CPU, NCCL_* environment); GPU facts are added by the caller.
Provenance host_provenance(const std::string& command_line, const std::string& backend);
// "4 processes on 1 node (h0 x4)"; "1 process" for a plain run.
std::string launch_text(const LaunchInfo& l);
// The fields that must match for two results to be comparable. A multi-process run adds
// `launch` (so a 2x8 run never compares against a 1x8 one, nor against one process driving 8
// GPUs); a plain run's fields are those of results written before the multi-process mode.
std::vector<std::pair<std::string, std::string>> fingerprint_fields(const Provenance& p);
// 16 hex digits (FNV-1a 64 over the fingerprint fields).
std::string fingerprint(const Provenance& p);
// FNV-1a 64 of `text` as 16 hex digits (the fingerprint's hash; also the nightly's sweep key).
std::string fnv1a_hex(std::string_view text);
nlohmann::json to_json(const Provenance& p);

}  // namespace arbench
