#include "measure/nccl/nccl_protocol_policy.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace arbench {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  return s;
}

}  // namespace

bool nccl_proto_enables_ll128(const std::string& proto) {
  bool ll128 = true;  // a value with no entry for all-reduces leaves NCCL's default, which includes it
  bool set = false;
  std::istringstream entries(lower(proto));
  for (std::string entry; std::getline(entries, entry, ';');) {
    const auto colon = entry.find(':');
    std::string list = entry;
    if (colon != std::string::npos) {
      if (entry.substr(0, colon) != "allreduce") continue;
      list = entry.substr(colon + 1);
    }
    const bool except = !list.empty() && list[0] == '^';
    if (except) list.erase(0, 1);
    bool named = false;
    std::istringstream items(list);
    for (std::string item; std::getline(items, item, ',');) named = named || item == "ll128";
    ll128 = except ? !named : named;
    set = true;
  }
  return set && ll128;
}

std::string nccl_protocol_refusal(const std::map<std::string, std::string>& env, bool all_nvlink, bool allowed,
                                  bool inherited) {
  const auto it = env.find("NCCL_PROTO");
  if (it == env.end() || all_nvlink || allowed) return {};
  if (!nccl_proto_enables_ll128(it->second)) return {};
  return "LL128 over PCIe is unsafe: NCCL_PROTO=" + it->second + (inherited ? " (inherited from the environment)" : "") +
         " enables LL128, and with NCCL_PROTO set NCCL skips its own LL128 checks and runs it over PCIe "
         "peer-to-peer, where 128-byte stores may arrive torn (silently wrong sums); these GPUs are not all "
         "NVLink-connected. --allow-ll128-pcie runs it anyway" +
         (inherited ? std::string(", or unset NCCL_PROTO (or leave LL128 out of it)") : std::string());
}

}  // namespace arbench
