// Provenance: the facts that make a result reproducible and two results comparable, and the
// machine fingerprint (a hash of the comparable facts) that `compare` checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace arbench {

struct GpuInfo {
  int index = 0;
  std::string name, cc, pci_bus_id;
  int sm_clock_mhz = 0, mem_clock_mhz = 0;
};

struct Provenance {
  std::string arbench_version, arbench_revision, command_line;
  std::string backend, timing;  // timing: "gpu" (CUDA events) or "cpu" (steady_clock)
  std::vector<GpuInfo> gpus;
  std::string driver, cuda_runtime, nccl_version;
  std::vector<std::pair<std::string, std::string>> nccl_env;  // every NCCL_* variable
  std::string host_name, cpu_model;
};

// Host facts (version, revision, host, CPU, NCCL_* environment); GPU facts are added by the caller.
Provenance host_provenance(const std::string& command_line, const std::string& backend);
// The fields that must match for two results to be comparable.
std::vector<std::pair<std::string, std::string>> fingerprint_fields(const Provenance& p);
// 16 hex digits (FNV-1a 64 over the fingerprint fields).
std::string fingerprint(const Provenance& p);
// FNV-1a 64 of `text` as 16 hex digits (the fingerprint's hash; also the nightly's sweep key).
std::string fnv1a_hex(std::string_view text);
nlohmann::json to_json(const Provenance& p);

}  // namespace arbench
