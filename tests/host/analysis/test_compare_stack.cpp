// compare of two results of one machine with different software stacks: compared, not refused,
// and headed by the stack diff; an upgrade that slows every case fails the gate; other hardware
// is still refused; an old-format BASE (written before the machine/stack split) still compares.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/compare_stack.hpp"
#include "results/machine_stack.hpp"
#include "tests/host/analysis/compare_test_util.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using namespace testing;

// 12 cases (enough for a run-level verdict), every median scaled by `scale`.
std::vector<SynthCase> cases(double scale, unsigned seed) {
  std::vector<SynthCase> out;
  for (int i = 0; i < 12; ++i)
    out.push_back({ar_name("nccl", 8, 1024u << i), jittered(20.0 * (i + 1) * scale, 0.01, 40, seed + i)});
  return out;
}

// A result whose provenance records `key` = `value` (both where the old fingerprint mixed it in
// and in the stack), written by today's arbench (machine and stack) unless `old_format`.
json with_stack(json doc, const std::string& key, const std::string& value, bool old_format = false) {
  json& prov = doc["arbench"]["provenance"];
  if (!key.empty()) {
    prov[key] = value;
    prov["fingerprint_fields"][key] = value;
    prov["fingerprint"] = "ffffffffffffffff";  // the old recipe's hash changes with the stack
  }
  if (!old_format) add_machine_and_stack(prov);
  return doc;
}

TEST(CompareStack, DriverCudaOrNcclChangeIsComparedAndHeadsTheReport) {
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"driver", "driver 580.65 \u2192 590.10"},
      {"cuda_runtime", "CUDA runtime 13.0 \u2192 13.1"},
      {"nccl_version", "NCCL 2.28.3 \u2192 2.29.2"}};
  const std::vector<std::string> values = {"590.10", "13.1", "2.29.2"};
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const auto& [key, text] = changes[i];
    const ResultFile base = as_file(with_stack(make_result(cases(1, 1)), "", ""), "base.json");
    const ResultFile next = as_file(with_stack(make_result(cases(1, 101)), key, values[i]), "new.json");
    const CompareReport rep = compare_results(base, next, {});  // no refusal
    EXPECT_TRUE(rep.machine_differences.empty()) << key;
    ASSERT_EQ(rep.stack_changes.size(), 1u) << key;
    const std::string out = format_compare(rep, ReportFormat::text);
    const std::string head = "stack changed: " + text + ": 0 cases slower, 0 faster, run-level ";
    EXPECT_NE(out.find(head), std::string::npos) << out;
    EXPECT_LT(out.find(head), out.find("case ")) << "the stack line heads the report";
    const json j = json::parse(format_compare(rep, ReportFormat::json));
    EXPECT_EQ(j["stack_changes"][0]["field"], key);
    EXPECT_EQ(j["stack_changes"][0]["platform"], true);
    EXPECT_EQ(j["base_machine"], j["new_machine"]);
    EXPECT_EQ(compare_exit_code(rep), 0) << key;
  }
}

TEST(CompareStack, AnUpgradeThatSlowsAllReduceFailsTheGate) {
  const ResultFile base = as_file(with_stack(make_result(cases(1, 1)), "", ""), "base.json");
  const ResultFile next = as_file(with_stack(make_result(cases(1.10, 101)), "nccl_version", "2.29.2"), "new.json");
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_EQ(compare_exit_code(rep), 1);
  EXPECT_EQ(rep.regressions, 12);
  EXPECT_EQ(stack_change_line(rep).rfind("stack changed: NCCL 2.28.3 \u2192 2.29.2: 12 cases slower, 0 faster, "
                                         "run-level +10.",
                                         0),
            0u)
      << stack_change_line(rep);
  const std::string md = format_compare(rep, ReportFormat::markdown);
  EXPECT_NE(md.find("**stack changed: NCCL"), std::string::npos) << md;
}

TEST(CompareStack, OtherHardwareIsStillRefused) {
  json other = with_stack(make_result(cases(1, 101)), "host_name", "box2");
  const ResultFile base = as_file(with_stack(make_result(cases(1, 1)), "", ""), "base.json");
  const auto refusal = test::thrown<UsageError>([&] { compare_results(base, as_file(other, "new.json"), {}); });
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->exit_code(), 2);
  EXPECT_NE(std::string(refusal->what()).find("host_name: \"box1\" vs \"box2\""), std::string::npos) << refusal->what();
}

TEST(CompareStack, OldFormatBaseStillCompares) {
  const ResultFile base = as_file(with_stack(make_result(cases(1, 1)), "", "", true), "old.json");
  const ResultFile next = as_file(with_stack(make_result(cases(1, 101)), "nccl_version", "2.29.2"), "new.json");
  ASSERT_TRUE(base.migrated);
  EXPECT_EQ(base.machine_id, next.machine_id);
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_EQ(rep.rows.size(), 12u);
  EXPECT_NE(stack_change_line(rep).find("NCCL 2.28.3 \u2192 2.29.2"), std::string::npos);
  const json j = json::parse(format_compare(rep, ReportFormat::json));
  EXPECT_EQ(j["base_migrated"], true);
  EXPECT_EQ(j["new_migrated"], false);
}

}  // namespace
}  // namespace arbench
