// What a run writes when it ends early (bench/run/run_outputs.hpp): the finished cases, valid
// against the documented schema, with `arbench.incomplete` saying why and what did not run.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "results/provenance.hpp"
#include "results/report.hpp"
#include "run/run_outputs.hpp"

using namespace arbench;

namespace {

FinishedRun finished_run() {
  FinishedRun run;
  run.backend = "host";
  Provenance p = host_provenance("arbench run", "host");
  run.provenance = to_json(p);
  run.config = nlohmann::json::object();
  CaseResult r;
  r.c = Case{"ring", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false};
  r.samples_us = {5, 6, 7};
  r.latency_us.median = 6;
  run.results = {r};
  return run;
}

}  // namespace

TEST(RunOutputs, CompleteRunHasNoIncompleteMarker) {
  const nlohmann::json doc = result_document(finished_run());
  EXPECT_TRUE(validate_result_json(doc).empty());
  EXPECT_FALSE(doc["arbench"].contains("incomplete"));
}

TEST(RunOutputs, StoppedRunIsMarkedIncomplete) {
  FinishedRun run = finished_run();
  run.incomplete = Incomplete{"interrupted (Ctrl-C)", 3, {"allreduce/ring/bf16/gpus:2/bytes:2048",
                                                        "allreduce/ring/bf16/gpus:2/bytes:4096"}};
  const nlohmann::json doc = result_document(run);
  const auto problems = validate_result_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();
  const auto& inc = doc["arbench"]["incomplete"];
  EXPECT_EQ(inc["reason"], "interrupted (Ctrl-C)");
  EXPECT_EQ(inc["cases_planned"], 3);
  EXPECT_EQ(inc["cases_run"], 1);
  EXPECT_EQ(inc["not_run"].size(), 2u);

  nlohmann::json broken = doc;  // the validator checks the marker too
  broken["arbench"]["incomplete"]["cases_run"] = 2;
  EXPECT_FALSE(validate_result_json(broken).empty());
  broken["arbench"]["incomplete"] = "yes";
  EXPECT_FALSE(validate_result_json(broken).empty());

  const std::string dir = testing::TempDir(), json = dir + "arbench-outputs.json", csv = dir + "arbench-outputs.csv";
  std::ostringstream log;
  write_run_outputs(run, json, csv, log);
  EXPECT_NE(log.str().find("wrote " + json + " (incomplete: the finished cases only)"), std::string::npos) << log.str();
  std::ifstream in(json);
  EXPECT_EQ(nlohmann::json::parse(in)["arbench"]["incomplete"]["cases_planned"], 3);
  std::remove(json.c_str());
  std::remove(csv.c_str());
}
