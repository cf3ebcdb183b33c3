// A lossy variant's error figures (CaseResult::max_abs_err, rms_rel_err) through every output:
// the JSON case record writes them when set and reads them back (case_from_json, and
// load_result_file's ResultCase, which compare, tune, step and settings read); the schema check
// and the loader refuse a figure that is not a non-negative number; the CSV has the two columns,
// empty for exact variants; exact variants' records carry no figure at all.
#include <gtest/gtest.h>

#include <limits>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "results/report.hpp"
#include "results/result_file.hpp"
#include "tests/host/results/csv_rows.hpp"
#include "tests/host/results/synthetic_result.hpp"
#include "tests/host/thrown.hpp"

namespace arbench {
namespace {

CaseResult lossy_case() {
  CaseResult r;
  r.c = Case{"twoshot-fp8", Family::allreduce, DType::bf16, 8, 1 << 20, 0, 0, false};
  r.samples_us = {40, 41, 42};
  r.latency_us.median = 41;
  r.checked = true;
  r.max_abs_err = 0.0625;
  r.rms_rel_err = 0.0091;
  return r;
}

CaseResult exact_case() {
  CaseResult r = lossy_case();
  r.c.variant = "twoshot";
  r.max_abs_err.reset();
  r.rms_rel_err.reset();
  return r;
}

TEST(ErrorFigures, JsonCarriesThemForLossyCasesOnly) {
  const nlohmann::json lossy = case_to_json(lossy_case()), exact = case_to_json(exact_case());
  EXPECT_DOUBLE_EQ(lossy.at("max_abs_err").get<double>(), 0.0625);
  EXPECT_DOUBLE_EQ(lossy.at("rms_rel_err").get<double>(), 0.0091);
  EXPECT_FALSE(exact.contains("max_abs_err")) << exact.dump();
  EXPECT_FALSE(exact.contains("rms_rel_err")) << exact.dump();
  // Read back whole (a child process's cases) ...
  const CaseResult back = case_from_json(lossy, "child.json");
  ASSERT_TRUE(back.max_abs_err && back.rms_rel_err);
  EXPECT_DOUBLE_EQ(*back.max_abs_err, 0.0625);
  EXPECT_DOUBLE_EQ(*back.rms_rel_err, 0.0091);
  EXPECT_FALSE(back.extra.count("max_abs_err"));  // a figure of its own, not an extra counter
  const CaseResult exact_back = case_from_json(exact, "child.json");
  EXPECT_FALSE(exact_back.max_abs_err || exact_back.rms_rel_err);
}

TEST(ErrorFigures, ANonFiniteFigureIsWrittenAsNull) {
  CaseResult r = lossy_case();
  r.max_abs_err = std::numeric_limits<double>::infinity();
  const nlohmann::json j = case_to_json(r);
  ASSERT_TRUE(j.contains("max_abs_err"));
  EXPECT_TRUE(j.at("max_abs_err").is_null());
}

// A document as `arbench run` writes it, its cases given.
nlohmann::json document(const std::vector<CaseResult>& cases) {
  nlohmann::json jc = nlohmann::json::array();
  for (const auto& c : cases) jc.push_back(case_to_json(c));
  nlohmann::json doc = testing::make_result({});
  doc["arbench"]["cases"] = jc;
  return doc;
}

TEST(ErrorFigures, LoadedResultsCarryThem) {
  const ResultFile f = parse_result_json(document({lossy_case(), exact_case()}), "night.json");
  ASSERT_EQ(f.cases.size(), 2u);
  ASSERT_TRUE(f.cases[0].has_error_figures());
  EXPECT_DOUBLE_EQ(*f.cases[0].max_abs_err, 0.0625);
  EXPECT_DOUBLE_EQ(*f.cases[0].rms_rel_err, 0.0091);
  EXPECT_FALSE(f.cases[1].has_error_figures());
}

TEST(ErrorFigures, SchemaCheckAndLoaderRefuseABadFigure) {
  nlohmann::json doc = document({lossy_case()});
  EXPECT_TRUE(validate_result_json(doc).empty());
  for (const nlohmann::json& bad : {nlohmann::json(-0.5), nlohmann::json("small")}) {
    nlohmann::json d = doc;
    d["arbench"]["cases"][0]["rms_rel_err"] = bad;
    const auto problems = validate_result_json(d);
    ASSERT_EQ(problems.size(), 1u) << bad.dump();
    EXPECT_NE(problems[0].find("'rms_rel_err' is not a non-negative number"), std::string::npos) << problems[0];
    const std::string msg = test::thrown_message<UsageError>([&] { parse_result_json(d, "night.json"); });
    EXPECT_NE(msg.find("night.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rms_rel_err is"), std::string::npos) << msg;
    EXPECT_NE(msg.find("expected a non-negative number"), std::string::npos) << msg;
  }
  doc["arbench"]["cases"][0]["max_abs_err"] = nullptr;  // not finite when written: valid, not a figure
  EXPECT_TRUE(validate_result_json(doc).empty());
  EXPECT_FALSE(parse_result_json(doc, "night.json").cases[0].max_abs_err);
}

using test::csv_row;

TEST(ErrorFigures, CsvColumns) {
  const std::string csv = results_csv({lossy_case(), exact_case()}, "host");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), kCsvHeader);
  const auto lossy = csv_row(csv, 0);
  EXPECT_EQ(lossy.at("max_abs_err"), "0.0625");
  EXPECT_EQ(lossy.at("rms_rel_err"), "0.0091");
  for (const char* figure : {"max_abs_err", "rms_rel_err"}) EXPECT_EQ(csv_row(csv, 1).at(figure), "") << "exact: no figure";
}

}  // namespace
}  // namespace arbench
