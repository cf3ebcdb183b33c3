#include "kernels/fabric/peer/symm_provider.hpp"

namespace arbench {

std::optional<SymmProvider> parse_symm_provider(std::string_view s) {
  if (s == "cuda") return SymmProvider::cuda;
  if (s == "nccl") return SymmProvider::nccl;
  return std::nullopt;
}

ProviderDecision decide_provider(std::optional<SymmProvider> asked, const std::function<ProviderReport()>& cuda,
                                 const std::function<ProviderReport()>& nccl) {
  ProviderDecision d;
  if (asked) {
    const ProviderReport r = *asked == SymmProvider::cuda ? cuda() : nccl();
    if (r.works())
      d.provider = asked;
    else
      d.skip_reason = "symmetric memory from the " + std::string(symm_provider_name(*asked)) +
                      " provider is unavailable: " + r.why_not;
    return d;
  }
  const ProviderReport c = cuda();
  if (c.works()) {
    d.provider = SymmProvider::cuda;
    return d;
  }
  const ProviderReport n = nccl();
  if (n.works()) {
    d.provider = SymmProvider::nccl;
    d.note = "symmetric memory from NCCL windows: the cuda provider is unavailable (" + c.why_not + ")";
    return d;
  }
  d.skip_reason = "no symmetric memory: the cuda provider is unavailable (" + c.why_not +
                  ") and so is the nccl provider (" + n.why_not + ")";
  return d;
}

}  // namespace arbench
