// The head of a compare report when BASE and NEW ran on one machine with different software
// stacks: what changed and what it did, in one line —
//   "stack changed: NCCL 2.28.9 → 2.29.2: 14 cases slower, 3 faster, run-level -6.1%"
// ("arbench changed: arbench revision a → b: ..." when only arbench's own version differs).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "analysis/compare.hpp"

namespace arbench {

// The line above ("" when the stacks are the same or unknown).
std::string stack_change_line(const CompareReport& rep);
// {"base_machine","new_machine","stack_changes":[{"field","label","base","new","platform"}],
//  "stack_summary": the line above, "base_migrated","new_migrated": read from a result written
//  before the machine/stack split}: merged into compare's JSON.
void add_stack_json(const CompareReport& rep, nlohmann::json& j);

}  // namespace arbench
