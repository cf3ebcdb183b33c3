// `arbench step` offers a low-precision (lossy) variant only with its error shown: its rows carry
// the error figures of the measured sizes they come from (the worse neighbour when interpolated),
// the text table gets an `err %` column (`exact` for the exact rows), the JSON rows their
// figures, and a lossy case without its figures (an unchecked run) is left out with why.
//   model hidden 1024, 10 layers, bf16: message = tokens x 2048 B
//   oneshot-push  2048 B, 8192 B -> 5 us, 20 us
//   oneshot-fp8   2048 B, 8192 B -> 4 us, 12 us; rms_rel_err 0.5%, 0.8%; max_abs_err 0.05, 0.06
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "step/step.hpp"
#include "step/step_report.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using testing::ar_name;
using testing::SynthCase;

const StepModel kModel{"tiny", 1024, 10};

ResultFile planted(bool figures_at_8k = true) {
  std::vector<SynthCase> cases = {
      {ar_name("oneshot-push", 8, 2048), {5.0}},
      {ar_name("oneshot-push", 8, 8192), {20.0}},
      {ar_name("oneshot-fp8", 8, 2048), {4.0}, true, 0.05, 0.005},
      {ar_name("oneshot-fp8", 8, 8192), {12.0}, true, figures_at_8k ? std::optional(0.06) : std::nullopt,
       figures_at_8k ? std::optional(0.008) : std::nullopt},
  };
  return parse_result_json(testing::make_result(cases), "lossy.json");
}

const StepRow& row(const StepReport& r, const std::string& variant, int batch) {
  for (const StepRow& x : r.tables.at(0).rows)
    if (x.variant == variant && x.batch == batch) return x;
  throw std::runtime_error("no row " + variant + " at batch " + std::to_string(batch));
}

TEST(StepLossy, RowsCarryTheErrorOfTheSizesTheyComeFrom) {
  StepOptions opt;
  opt.batch = {1, 2, 4};  // 2048 B (measured), 4096 B (between), 8192 B (measured)
  const StepReport r = project_step(planted(), kModel, opt);
  const StepRow& at1 = row(r, "oneshot-fp8", 1);
  EXPECT_TRUE(at1.lossy);
  EXPECT_DOUBLE_EQ(*at1.rms_rel_err, 0.005);
  EXPECT_DOUBLE_EQ(*at1.max_abs_err, 0.05);
  const StepRow& at2 = row(r, "oneshot-fp8", 2);  // interpolated: the worse neighbour
  EXPECT_TRUE(at2.interpolated);
  EXPECT_DOUBLE_EQ(*at2.rms_rel_err, 0.008);
  EXPECT_DOUBLE_EQ(*at2.max_abs_err, 0.06);
  EXPECT_DOUBLE_EQ(*row(r, "oneshot-fp8", 4).rms_rel_err, 0.008);
  const StepRow& exact = row(r, "oneshot-push", 1);
  EXPECT_FALSE(exact.lossy);
  EXPECT_FALSE(exact.rms_rel_err);
  EXPECT_EQ(r.tables[0].rows.front().variant, "oneshot-fp8");  // a choice, ranked by its time

  const std::string text = format_step(r, ReportFormat::text);
  EXPECT_NE(text.find("err %"), std::string::npos) << text;
  EXPECT_NE(text.find("0.500"), std::string::npos) << text;  // 0.005 in percent
  EXPECT_NE(text.find("0.800"), std::string::npos) << text;
  EXPECT_NE(text.find("exact"), std::string::npos) << text;
  EXPECT_NE(text.find("err % = the low-precision rows' rms error"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) EXPECT_LE(l.size(), 120u) << l;

  const nlohmann::json j = step_file_json({r});
  for (const auto& x : j["models"][0]["tables"][0]["rows"]) {
    if (x["variant"] == "oneshot-fp8") {
      EXPECT_EQ(x["lossy"], true);
      EXPECT_TRUE(x["rms_rel_err"].is_number());
      EXPECT_TRUE(x["max_abs_err"].is_number());
    } else {
      EXPECT_EQ(x["lossy"], false);
      EXPECT_TRUE(x["rms_rel_err"].is_null());
    }
  }
}

TEST(StepLossy, NoColumnWithoutALossyRow) {
  std::vector<SynthCase> cases = {{ar_name("oneshot-push", 8, 2048), {5.0}}};
  const StepReport r = project_step(parse_result_json(testing::make_result(cases), "exact.json"), kModel, {});
  EXPECT_EQ(format_step(r, ReportFormat::text).find("err %"), std::string::npos);
}

TEST(StepLossy, ALossyCaseWithoutItsErrorIsNoChoice) {
  StepOptions opt;
  opt.batch = {1};
  const StepReport r = project_step(planted(false), kModel, opt);
  bool found = false;
  for (const std::string& i : r.ignored)
    found = found || i.find(ar_name("oneshot-fp8", 8, 8192) + ": low precision without its error figure") == 0;
  EXPECT_TRUE(found) << ::testing::PrintToString(r.ignored);
  // Its checked size still feeds the projection; the unchecked one does not.
  EXPECT_DOUBLE_EQ(*row(r, "oneshot-fp8", 1).rms_rel_err, 0.005);
  // Every case of the variant unchecked: the registry's predicate still knows it is lossy.
  std::vector<SynthCase> cases = {{ar_name("oneshot-push", 8, 2048), {5.0}}, {ar_name("oneshot-fp8", 8, 2048), {4.0}}};
  StepOptions told = opt;
  told.lossy = [](const std::string& v) { return v == "oneshot-fp8"; };
  const StepReport u = project_step(parse_result_json(testing::make_result(cases), "unchecked.json"), kModel, told);
  for (const StepRow& x : u.tables.at(0).rows) EXPECT_NE(x.variant, "oneshot-fp8");
}

}  // namespace
}  // namespace arbench
