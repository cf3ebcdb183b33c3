// What the banner says of the custom kernels' symmetric memory on the cuda backend
// (docs/variants.md, "Symmetric memory: two providers"): which provider each world size got, from
// the harness's decisions, and why the default did not take `cuda` where it did not.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace arbench {

// `asked`: --symm-mem; `decisions`: Harness::provider_decisions() ((world, provider asked) ->
// "cuda", "nccl", or "!why"); `notes`: Harness::provider_notes(). One line per entry, no indent;
// none when no custom kernel was planned.
std::vector<std::string> symm_mem_lines(const std::string& asked,
                                        const std::map<std::pair<int, std::string>, std::string>& decisions,
                                        const std::vector<std::string>& notes);

}  // namespace arbench
