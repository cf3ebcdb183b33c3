// Which forced NCCL configurations arbench offers on a box (host logic, tested without GPUs).
//
// LL128 moves data in 128-byte lines whose last 8 bytes carry the flag, so a reader must see
// each 128-byte store whole. NVLink guarantees that; PCIe peer-to-peer does not. NCCL only
// enables LL128 by itself where it knows it is safe, but with NCCL_PROTO set it skips those
// checks (NCCL 2.28.9, src/graph/tuning.cc) and runs LL128 over PCIe, where a torn line is a
// silently wrong sum. So `nccl[*/ll128]` is skipped unless every GPU pair of the case is
// NVLink-connected, or the user asks for it (--allow-ll128-pcie).
#pragma once

#include <map>
#include <string>

namespace arbench {

// Whether NCCL_PROTO=`proto` lets an all-reduce use LL128, by NCCL's own grammar (NCCL 2.28.9,
// src/graph/tuning.cc parseList): ";"-separated entries, the first optionally without a
// "function:" prefix (it applies to every function), each a ","-list of protocols (LL, LL128,
// Simple; any case), "^" in front meaning every protocol but those. "^LL" enables LL128.
bool nccl_proto_enables_ll128(const std::string& proto);

// Why the environment `env` (NCCL_PROTO, NCCL_ALGO as a forced configuration sets them, or as
// this process inherited them: `inherited`) must not run on GPUs that are (`all_nvlink`) or are
// not all NVLink-connected; empty when it may. `allowed`: --allow-ll128-pcie.
std::string nccl_protocol_refusal(const std::map<std::string, std::string>& env, bool all_nvlink, bool allowed,
                                  bool inherited = false);

}  // namespace arbench
