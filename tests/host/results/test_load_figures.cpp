// The figures of what a case costs a model beside it (results/load_figures.hpp, docs/output.md):
// `sms` and `sms_basis` always written (null when unknown), `beside` when measured; read back
// whole (a child process's case) and by the result loader; the schema check and the loader refuse
// a bad count; the CSV's last three columns.
#include <gtest/gtest.h>

#include <sstream>

#include "arbench/core/errors.hpp"
#include "results/load_figures.hpp"
#include "results/report.hpp"
#include "results/result_file.hpp"
#include "tests/host/results/synthetic_result.hpp"
#include "tests/host/thrown.hpp"

namespace arbench {
namespace {

CaseResult measured() {
  CaseResult r;
  r.c = Case{"ring", Family::allreduce, DType::bf16, 2, 4096, 0, 0, false};
  r.samples_us = {10, 11, 12};
  r.latency_us = summarize(r.samples_us);
  r.sms = SmUse{4, kSmsModelled};
  BesideFigures b;
  b.load = "compute";
  b.timing = "cpu";
  b.samples_us = {20, 21, 22};
  b.latency_us = summarize(b.samples_us);
  b.alone_per_s = 1000;
  b.with_case_per_s = 750;
  b.item_us = 25;
  r.beside = b;
  return r;
}

TEST(LoadFigures, WrittenAndReadBackWhole) {
  const nlohmann::json j = case_to_json(measured());
  EXPECT_EQ(j["sms"], 4);
  EXPECT_EQ(j["sms_basis"], kSmsModelled);
  EXPECT_DOUBLE_EQ(j["beside"]["median_us"].get<double>(), 21);
  EXPECT_DOUBLE_EQ(j["beside"]["background_slowdown"].get<double>(), 0.25);
  const CaseResult back = case_from_json(j, "child.json");
  EXPECT_EQ(back.sms.ctas, 4);
  ASSERT_TRUE(back.beside);
  EXPECT_DOUBLE_EQ(back.beside->slowdown(), 0.25);
  EXPECT_EQ(back.beside->samples_us.size(), 3u);
  EXPECT_EQ(back.extra.count("sms"), 0u);  // its own field, never an extra counter

  CaseResult unknown = measured();
  unknown.sms = SmUse{-1, "unknown: NCCL picks its channels"};
  unknown.beside.reset();
  const nlohmann::json u = case_to_json(unknown);
  EXPECT_TRUE(u["sms"].is_null());
  EXPECT_FALSE(u.contains("beside"));
  EXPECT_FALSE(case_from_json(u, "child.json").sms.known());
}

TEST(LoadFigures, SchemaCheckAndLoaderRefuseABadCount) {
  nlohmann::json doc = testing::make_result({{testing::ar_name("ring", 2, 4096), {1, 2, 3}}});
  nlohmann::json& c = doc["arbench"]["cases"][0];
  c["sms"] = 4;
  c["sms_basis"] = "grid";
  EXPECT_TRUE(validate_result_json(doc).empty());
  EXPECT_EQ(parse_result_json(doc, "r.json").cases[0].sms, 4);
  c["sms"] = nullptr;
  EXPECT_TRUE(validate_result_json(doc).empty());
  EXPECT_FALSE(parse_result_json(doc, "r.json").cases[0].sms);
  for (const nlohmann::json& bad : {nlohmann::json(-1), nlohmann::json("many"), nlohmann::json(2.5)}) {
    c["sms"] = bad;
    const auto problems = validate_result_json(doc);
    ASSERT_EQ(problems.size(), 1u) << bad.dump();
    EXPECT_NE(problems[0].find("'sms' is not a non-negative integer or null"), std::string::npos) << problems[0];
    const std::string msg = test::thrown_message<UsageError>([&] { parse_result_json(doc, "r.json"); });
    EXPECT_NE(msg.find("sms is"), std::string::npos) << msg;
  }
  c["sms"] = 4;
  c["beside"] = {{"load", "compute"}, {"timing", "cpu"}};  // no median, no rates
  EXPECT_GE(validate_result_json(doc).size(), 2u);
}

TEST(LoadFigures, CsvColumns) {
  CaseResult failed = measured();
  failed.ok = false;
  failed.reason = "planted";
  const std::string csv = results_csv({measured(), failed}, "host");
  std::istringstream in(csv);
  std::string header, ok_row, failed_row;
  std::getline(in, header);
  std::getline(in, ok_row);
  std::getline(in, failed_row);
  EXPECT_EQ(header.substr(header.size() - std::string(kLoadCsvColumns).size()), kLoadCsvColumns);
  EXPECT_TRUE(ok_row.ends_with(",4,21,0.25")) << ok_row;
  EXPECT_TRUE(failed_row.ends_with(",4,,")) << failed_row;  // no figures of a failed case
}

}  // namespace
}  // namespace arbench
