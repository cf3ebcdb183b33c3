// Which NCCL the device-API parts of arbench may run with, host code only (tested without NCCL:
// tests/host/fabric/test_nccl_version.cpp).
//
// arbench loads libnccl at run time, but its device-API parts are compiled against the NCCL
// headers found at build time: ncclDevCommRequirements (a struct NCCL validates: from 2.29 it
// carries size, magic and version, and a zeroed one is rejected, which would silently skip every
// custom variant on the cuda backend), ncclDevComm, and ncclGetLsaPointer, an inline device
// function that reads NCCL's window layout directly. Those are only right for the headers' own
// major.minor; patch releases keep them.
#pragma once

#include <string>

namespace arbench {

// "2.28.9" from an NCCL version code (22809; codes of NCCL < 2.9 are X*1000 + Y*100 + Z).
inline std::string nccl_version_text(int code) {
  const bool old = code < 20900;
  const int major = old ? code / 1000 : code / 10000;
  const int minor = old ? code / 100 % 10 : code / 100 % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

// Empty when the loaded library (runtime_code, from ncclGetVersion) has the headers' (header_code,
// NCCL_VERSION_CODE) major.minor; else why the device-API parts cannot be used, and what to do.
inline std::string nccl_device_api_mismatch(int header_code, int runtime_code) {
  if (header_code / 100 == runtime_code / 100) return {};
  const std::string built = nccl_version_text(header_code), loaded = nccl_version_text(runtime_code);
  return "arbench was built against the NCCL " + built + " headers but loaded libnccl " + loaded +
         ": the NCCL device API (ncclDevComm, ncclDevCommRequirements, ncclGetLsaPointer) is only valid "
         "for the headers' major.minor, so symmetric-memory variants are skipped. Rebuild arbench against "
         "NCCL " + loaded.substr(0, loaded.rfind('.')) + " headers, or load an NCCL " +
         built.substr(0, built.rfind('.')) + ".x library (ARBENCH_NCCL_LIBRARY)";
}

}  // namespace arbench
