// The stack-change head of a compare report; see compare_stack.hpp.
#include "analysis/compare_stack.hpp"

#include <nlohmann/json.hpp>

#include "analysis/report_table.hpp"

namespace arbench {

std::string stack_change_line(const CompareReport& rep) {
  if (rep.stack_changes.empty()) return {};
  int slower = 0, faster = 0;
  for (const CaseComparison& r : rep.rows) {
    slower += r.result.verdict == Verdict::slower ? 1 : 0;
    faster += r.result.verdict == Verdict::faster ? 1 : 0;
  }
  const double run = rep.run.result.judged ? rep.run.result.geomean_ratio : rep.geomean_ratio;
  bool platform = false;  // a driver, CUDA or NCCL change; else only arbench's own version changed
  for (const StackChange& c : rep.stack_changes) platform |= c.platform;
  return (platform ? "stack changed: " : "arbench changed: ") + stack_changes_text(rep.stack_changes) + ": " + std::to_string(slower) +
         (slower == 1 ? " case" : " cases") + " slower, " + std::to_string(faster) + " faster, run-level " +
         format_percent_change(run);
}

void add_stack_json(const CompareReport& rep, nlohmann::json& j) {
  j["base_machine"] = rep.base_machine;
  j["new_machine"] = rep.new_machine;
  j["stack_changes"] = nlohmann::json::array();
  for (const StackChange& c : rep.stack_changes)
    j["stack_changes"].push_back({{"field", c.key},
                                  {"label", stack_key_label(c.key)},
                                  {"base", c.base_value},
                                  {"new", c.new_value},
                                  {"platform", c.platform}});
  j["stack_summary"] = stack_change_line(rep);
  j["base_migrated"] = rep.base_migrated;
  j["new_migrated"] = rep.new_migrated;
}

}  // namespace arbench
