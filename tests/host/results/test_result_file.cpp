// Loading result JSON: arbench and plain Google Benchmark inputs, and every kind of unusable
// input (missing, empty, malformed, truncated, schema mismatch) rejected with exit code 2 and a
// message that names the file and the problem.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "arbench/core/errors.hpp"
#include "results/device_state.hpp"
#include "results/report.hpp"
#include "results/result_file.hpp"
#include "tests/host/results/gpu_snapshots.hpp"
#include "tests/host/results/replaced_by_rename.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using testing::ar_name;
using testing::make_result;
using testing::write_temp;

// The UsageError message for loading `text`, or "" when it loads.
std::string load_error(const std::string& text, std::string* path_out = nullptr) {
  const std::string path = write_temp(text, "bad");
  if (path_out) *path_out = path;
  try {
    load_result_file(path);
  } catch (const UsageError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    return e.what();
  }
  return "";
}

// The synthetic files these tests use must be exactly what `arbench run` writes: the
// writer's own validator (results/report.hpp) keeps the two in step.
TEST(ResultFile, SyntheticResultsMatchTheWritersSchema) {
  const json j = make_result({{ar_name("nccl", 8, 65536), {24, 25, 26}},
                              {ar_name("ring", 8, 65536), {}, false}});
  EXPECT_EQ(validate_result_json(j), std::vector<std::string>{});
}

// The fields of adaptive sampling, --cache, the symmetric-memory provider and the device state: what the writer writes
// validates, and each of them with a wrong type is named.
TEST(ResultFile, ValidatorChecksSamplingCacheAndDeviceState) {
  CaseResult r;
  r.c = Case{"twoshot", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false};
  r.c.cold_cache = true;
  r.samples_us = {9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
  r.latency_us.median = 13.5;
  r.median_ci_us = {true, 11, 16, 13.5, 0.98, 0.37};
  r.sampling_stop = "noise";
  r.sampling_time_s = 0.25;
  r.symm_mem = "cuda";
  r.device = DeviceState{{{3, "0000:41:00.0", testing::healthy_gpu(), testing::healthy_gpu()}}, {}};
  json doc = make_result({{ar_name("nccl", 2, 1024), {24, 25, 26}}});
  doc["arbench"]["cases"][0] = case_to_json(r);
  ASSERT_EQ(validate_result_json(doc), std::vector<std::string>{});
  EXPECT_EQ(doc["arbench"]["cases"][0]["symm_mem"], "cuda");
  const std::vector<std::pair<std::string, json>> broken = {
      {"cache", "lukewarm"},
      {"symm_mem", "nvshmem"},
      {"noise", "0.3"},
      {"median_ci_us", json::array({11})},
      {"sampling", {{"stop", 3}, {"time_s", 0.25}}},
      {"device_state", {{"gpus", {{{"device", 3}, {"after", {{"sm_clock_mhz", "fast"}}}}}}}},
  };
  for (const auto& [key, value] : broken) {
    json bad = doc;
    bad["arbench"]["cases"][0][key] = value;
    const auto problems = validate_result_json(bad);
    ASSERT_EQ(problems.size(), 1u) << key;
    EXPECT_NE(problems[0].find(key == "sampling" ? "stop" : key == "device_state" ? "sm_clock_mhz" : key),
              std::string::npos)
        << problems[0];
  }
}

TEST(ResultFile, ReadsArbenchResult) {
  json j = make_result({{ar_name("nccl", 8, 65536), {24, 25, 26}},
                        {ar_name("nccl[ring/ll]", 8, 65536), {30, 31}},
                        {"allreduce_rmsnorm/fused-oneshot/bf16/gpus:4/tokens:16/hidden:8192",
                         {9, 10}}});
  j["arbench"]["cases"][1]["status"] = "failed";
  j["arbench"]["cases"][1]["reason"] = "2 wrong elements";
  const ResultFile r = load_result_file(write_temp(j.dump(), "ok"));
  EXPECT_TRUE(r.is_arbench);
  EXPECT_EQ(r.fingerprint, "0123456789abcdef");
  EXPECT_EQ(r.fingerprint_fields.at("gpu_name"), "NVIDIA RTX PRO 6000 Blackwell");
  ASSERT_EQ(r.cases.size(), 3u);
  EXPECT_EQ(r.cases[0].samples_us, (std::vector<double>{24, 25, 26}));
  EXPECT_EQ(r.cases[0].variant, "nccl");
  EXPECT_EQ(r.cases[0].world, 8);
  EXPECT_EQ(r.cases[0].bytes, 65536u);
  EXPECT_EQ(r.cases[1].variant, "nccl[ring/ll]");
  EXPECT_FALSE(r.cases[1].ok);
  EXPECT_EQ(r.cases[1].reason, "2 wrong elements");
  EXPECT_EQ(r.cases[2].family, "allreduce_rmsnorm");
  EXPECT_EQ(r.cases[2].tokens, 16);
  EXPECT_EQ(r.cases[2].hidden, 8192);
}

TEST(ResultFile, ReadsPlainGoogleBenchmarkRepetitionsAsSamples) {
  const json j = {
      {"context", {{"date", "x"}}},
      {"benchmarks",
       {{{"name", "BM_Copy/64"}, {"run_name", "BM_Copy/64"}, {"run_type", "iteration"},
         {"real_time", 1000.0}, {"time_unit", "ns"}},
        {{"name", "BM_Copy/64"}, {"run_name", "BM_Copy/64"}, {"run_type", "iteration"},
         {"real_time", 3000.0}, {"time_unit", "ns"}},
        {{"name", "BM_Copy/64_mean"}, {"run_name", "BM_Copy/64"}, {"run_type", "aggregate"},
         {"real_time", 2000.0}, {"time_unit", "ns"}},
        {{"name", "BM_Slow"}, {"real_time", 2.0}, {"time_unit", "ms"}},
        {{"name", "BM_Broken"}, {"error_occurred", true}, {"error_message", "boom"}}}}};
  const ResultFile r = parse_result_json(j, "plain.json");
  EXPECT_FALSE(r.is_arbench);
  EXPECT_TRUE(r.fingerprint.empty());
  ASSERT_EQ(r.cases.size(), 3u);
  EXPECT_EQ(r.cases[0].name, "BM_Copy/64");
  EXPECT_EQ(r.cases[0].samples_us, (std::vector<double>{1.0, 3.0}));  // aggregate ignored
  EXPECT_DOUBLE_EQ(r.cases[0].median_us, 2.0);
  EXPECT_EQ(r.cases[1].samples_us, (std::vector<double>{2000.0}));
  EXPECT_FALSE(r.cases[2].ok);
  EXPECT_EQ(r.cases[2].reason, "boom");
}

TEST(ResultFile, MissingFile) {
  try {
    load_result_file("/nonexistent/arbench/result.json");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/arbench/result.json: no such file; expected a result JSON"),
              std::string::npos)
        << e.what();
  }
}

TEST(ResultFile, EmptyFile) { EXPECT_NE(load_error("  \n").find("empty"), std::string::npos); }

TEST(ResultFile, MalformedJson) {
  const std::string e = load_error("{\"benchmarks\": [1, 2,, 3]}");
  EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("line 1"), std::string::npos) << e;
}

TEST(ResultFile, TruncatedJson) {
  const std::string full = make_result({{ar_name("nccl", 8, 1024), {1, 2, 3}}}).dump(2);
  const std::string e = load_error(full.substr(0, full.size() / 2));
  EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("unexpected end of input"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST(ResultFile, NewerSchemaVersion) {
  json j = make_result({{ar_name("nccl", 8, 1024), {1, 2, 3}}});
  j["arbench"]["schema_version"] = 2;
  const std::string e = load_error(j.dump());
  EXPECT_NE(e.find("arbench.schema_version is 2"), std::string::npos) << e;
  EXPECT_NE(e.find("reads version 1"), std::string::npos) << e;
}

TEST(ResultFile, WrongTypeNamesTheFieldAndCase) {
  json j = make_result({{ar_name("nccl", 8, 1024), {1, 2, 3}}});
  j["arbench"]["cases"][0]["samples_us"] = "1,2,3";
  const std::string e = load_error(j.dump());
  EXPECT_NE(e.find("arbench.cases[0] (allreduce/nccl/bf16/gpus:8/bytes:1024).samples_us"),
            std::string::npos) << e;
  EXPECT_NE(e.find("expected array"), std::string::npos) << e;
}

TEST(ResultFile, BadSampleValue) {
  json j = make_result({{ar_name("nccl", 8, 1024), {1, 2, 3}}});
  j["arbench"]["cases"][0]["samples_us"][1] = -4;
  EXPECT_NE(load_error(j.dump()).find("samples_us[1] is -4"), std::string::npos);
}

TEST(ResultFile, MissingCasesAndOkWithoutSamples) {
  json j = make_result({{ar_name("nccl", 8, 1024), {1}}});
  j["arbench"]["cases"][0]["samples_us"] = json::array();
  EXPECT_NE(load_error(j.dump()).find("no samples_us"), std::string::npos);
  j["arbench"].erase("cases");
  EXPECT_NE(load_error(j.dump()).find("arbench has no \"cases\""), std::string::npos);
}

TEST(ResultFile, DuplicateCaseNames) {
  const json j = make_result({{ar_name("nccl", 8, 1024), {1}}, {ar_name("nccl", 8, 1024), {2}}});
  EXPECT_NE(load_error(j.dump()).find("repeats the name"), std::string::npos);
}

TEST(ResultFile, NotAResultAtAll) {
  EXPECT_NE(load_error("[1, 2, 3]").find("top level is a array"), std::string::npos);
  EXPECT_NE(load_error("{\"name\": \"x\"}").find("no \"benchmarks\" array"), std::string::npos);
  EXPECT_NE(load_error("{\"benchmarks\": {}}").find("benchmarks is {}"), std::string::npos);
  EXPECT_NE(load_error("{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1, "
                       "\"time_unit\": \"fortnight\"}]}")
                .find("time_unit is \"fortnight\""),
            std::string::npos);
}

TEST(ResultFile, CaseNames) {
  ResultCase c;
  ASSERT_TRUE(parse_case_name("allreduce/nccl[ring/ll]/fp16/gpus:4/bytes:1048576", c));
  EXPECT_EQ(c.variant, "nccl[ring/ll]");
  EXPECT_EQ(c.dtype, "fp16");
  EXPECT_EQ(c.world, 4);
  EXPECT_EQ(c.bytes, 1048576u);
  ASSERT_TRUE(
      parse_case_name("allreduce_rmsnorm/fused-twoshot/bf16/gpus:8/tokens:64/hidden:4096", c));
  EXPECT_EQ(c.tokens, 64);
  EXPECT_EQ(c.hidden, 4096);
  ASSERT_TRUE(parse_case_name("allreduce/twoshot/bf16/gpus:8/bytes:4096/inplace", c));
  EXPECT_TRUE(c.in_place);
  ResultCase d;
  EXPECT_FALSE(parse_case_name("BM_Copy/64", d));
  EXPECT_FALSE(parse_case_name("allreduce/nccl/bf16/gpus:x/bytes:1", d));
  EXPECT_FALSE(parse_case_name("allreduce/nccl/bf16/gpus:8", d));
  EXPECT_TRUE(d.family.empty());
}

}  // namespace
}  // namespace arbench

namespace arbench {
namespace {

TEST(WriteFileAtomically, ReplacesTheFileByRenameNeverInPlace) {
  const std::string dir = ::testing::TempDir() + "arbench-atomic-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/result.json";
  testing::HeldFile old = testing::hold_old_file(path);
  write_file_atomically(path, "{\"new\": true}\n");
  testing::expect_replaced_by_rename(old, path);
  std::ifstream in(path);
  const std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(now, "{\"new\": true}\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace arbench
