// Evidence: one measured comparison behind a setting ("at 64 KiB, A took 12.1 µs and B 20.3 µs,
// A is 40% faster, Mann-Whitney p 2e-08, 20 samples each"), and the rule that decides whether A
// really beats B: the same two gates as `arbench compare` (analysis/verdict/verdict.hpp): significant
// (p < alpha) and material (the medians differ by at least the margin).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "analysis/verdict/verdict.hpp"
#include "results/result_file.hpp"

namespace arbench {

struct Evidence {
  std::string axis;  // "bytes" | "tokens"
  std::uint64_t size = 0;
  std::string chosen, other;  // variant names
  double chosen_us = 0, other_us = 0;
  double p_value = 1;
  std::size_t chosen_n = 0, other_n = 0;
  bool significant = false;  // p < alpha
  bool beats = false;  // chosen faster: significant and material
  bool loses = false;  // chosen slower: significant and material
  // 1 - chosen / other: 0.4 = chosen 40% faster; negative when slower.
  double faster_by() const { return other_us > 0 ? 1 - chosen_us / other_us : 0; }
};

// Weighs `chosen` against `other` at one size (both successful cases).
Evidence weigh(const ResultCase& chosen, const ResultCase& other, const std::string& axis, std::uint64_t size,
               const VerdictOptions& opt);

// "64 KiB: nccl[ring/ll/ch:4] 12.10 us vs nccl 20.30 us: 40.4% faster (p 2.1e-08, n 20/20)"; where
// it does not count: "... : 2.9% faster, below the margin (...)" or "..., not significant (...)";
// "16 tokens: ..." on the tokens axis.
std::string evidence_text(const Evidence& e);
nlohmann::json evidence_json(const Evidence& e);

// "1 KiB", "64 KiB", "1.5 MiB"; "16 tokens" on the tokens axis.
std::string size_text(std::uint64_t size, const std::string& axis);

}  // namespace arbench
