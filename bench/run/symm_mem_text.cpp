#include "run/symm_mem_text.hpp"

#include "sweep/run_config.hpp"

namespace arbench {
namespace {

std::string provider_text(const std::string& p) {
  if (p == "cuda") return "cuda (arbench's CUDA peer mappings)";
  if (p == "nccl") return "nccl (NCCL windows)";
  return "none (the custom kernels are skipped)";
}

}  // namespace

std::vector<std::string> symm_mem_lines(const std::string& asked,
                                        const std::map<std::pair<int, std::string>, std::string>& decisions,
                                        const std::vector<std::string>& notes) {
  if (decisions.empty()) return {};
  // provider -> world sizes, in the order the providers first appear
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const auto& [key, got] : decisions) {
    const std::string p = !got.empty() && got[0] == '!' ? std::string() : got;
    auto it = groups.begin();
    while (it != groups.end() && it->first != p) ++it;
    if (it == groups.end()) it = groups.insert(groups.end(), {p, {}});
    if (it->second.empty() || it->second.back() != key.first) it->second.push_back(key.first);
  }
  std::string line = "symmetric memory (--symm-mem " + asked + "): ";
  for (std::size_t i = 0; i < groups.size(); ++i)
    line += (i ? "; " : "") + provider_text(groups[i].first) + " for " + join_ints(groups[i].second) + " GPUs";
  std::vector<std::string> out = {line};
  for (const std::string& n : notes) out.push_back("note: " + n);
  return out;
}

}  // namespace arbench
