#include "measure/nccl_protocol_policy.hpp"

#include <algorithm>
#include <cctype>

namespace arbench {

std::string nccl_protocol_refusal(const std::map<std::string, std::string>& env, bool all_nvlink, bool allowed) {
  const auto it = env.find("NCCL_PROTO");
  if (it == env.end() || all_nvlink || allowed) return {};
  std::string proto = it->second;
  std::transform(proto.begin(), proto.end(), proto.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  if (proto.find("ll128") == std::string::npos) return {};
  return "LL128 over PCIe is unsafe: with NCCL_PROTO set, NCCL skips its own LL128 checks and runs it over PCIe "
         "peer-to-peer, where 128-byte stores may arrive torn (silently wrong sums); these GPUs are not all "
         "NVLink-connected. --allow-ll128-pcie runs it anyway";
}

}  // namespace arbench
