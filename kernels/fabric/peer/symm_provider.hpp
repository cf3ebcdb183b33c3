// Which provider gives a custom kernel its symmetric memory (docs/variants.md, "Symmetric
// memory: two providers"). Pure logic: the fabrics report what each provider said about a world
// size, this decides; tests/host/fabric/test_symm_provider.cpp covers every rule.
//
// A case that names its provider (`--symm-mem cuda` or `nccl`, and each of the two cases
// `--symm-mem all` makes of a custom kernel) runs on it, or is skipped with its reason. The
// default takes the one that works:
//   1. cuda, arbench's own peer mappings: it needs no NCCL, so NCCL missing, a library whose
//      version does not match the headers, or NCCL's symmetric support refused do not matter;
//   2. nccl, when cuda cannot map some pair of GPUs (the reason names the pair) and NCCL's
//      windows work there;
//   3. neither: the case is skipped with both reasons.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace arbench {

enum class SymmProvider : std::uint8_t { cuda, nccl };

constexpr std::string_view symm_provider_name(SymmProvider p) { return p == SymmProvider::cuda ? "cuda" : "nccl"; }
std::optional<SymmProvider> parse_symm_provider(std::string_view s);

// What one provider said about one world size: empty when its symmetric memory works there,
// else why not (its fabric's symmetric_unsupported_reason()).
struct ProviderReport {
  std::string why_not;
  bool works() const { return why_not.empty(); }
};

struct ProviderDecision {
  std::optional<SymmProvider> provider;  // nullopt: skipped
  std::string skip_reason;               // why, when skipped
  std::string note;                      // the default did not take cuda: why (for the banner)
};

// `asked`: the case's provider, or nullopt for the default. `cuda` and `nccl` report on their
// provider and are called only when the decision needs them (the default asks nccl only when
// cuda fails: NCCL communicators take seconds to create).
ProviderDecision decide_provider(std::optional<SymmProvider> asked, const std::function<ProviderReport()>& cuda,
                                 const std::function<ProviderReport()>& nccl);

}  // namespace arbench
