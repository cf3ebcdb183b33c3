// Synthetic result files for the compare/tune tests: the exact JSON shape `arbench run` writes
// (Google Benchmark's "context" and "benchmarks" plus the "arbench" object), with samples the
// test chooses, so each test knows the right answer in advance.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/result_file.hpp"

namespace arbench::testing {

struct SynthCase {
  std::string name;
  std::vector<double> samples_us;
  bool ok = true;
  // A lossy variant's error figures (absent from the case when unset, as for exact variants).
  std::optional<double> max_abs_err = std::nullopt, rms_rel_err = std::nullopt;
  // The case's speed-of-light floor (absent when unset, as in files from before floors).
  std::optional<double> sol_us = std::nullopt;
};

inline std::string ar_name(const std::string& variant, int world, std::uint64_t bytes,
                           const std::string& dtype = "bf16") {
  return "allreduce/" + variant + "/" + dtype + "/gpus:" + std::to_string(world) +
         "/bytes:" + std::to_string(bytes);
}

inline std::string fused_name(const std::string& variant, int world, int tokens, int hidden,
                              const std::string& dtype = "bf16") {
  return "allreduce_rmsnorm/" + variant + "/" + dtype + "/gpus:" + std::to_string(world) +
         "/tokens:" + std::to_string(tokens) + "/hidden:" + std::to_string(hidden);
}

// n samples spread uniformly in center * [1 - spread, 1 + spread], deterministic per seed.
inline std::vector<double> jittered(double center, double spread, int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const double u = double(gen()) / 4294967296.0;  // [0, 1), same on every platform
    v.push_back(center * (1 - spread + 2 * spread * u));
  }
  return v;
}

inline std::map<std::string, std::string> default_fingerprint_fields() {
  return {{"gpu_count", "8"},           {"gpu_name", "NVIDIA RTX PRO 6000 Blackwell"},
          {"driver", "580.65"},         {"nccl_version", "2.28.3"},
          {"backend", "cuda"},          {"host_name", "box1"}};
}

inline nlohmann::json make_result(const std::vector<SynthCase>& cases,
                                  const std::string& fingerprint = "0123456789abcdef",
                                  const std::map<std::string, std::string>& fields =
                                      default_fingerprint_fields()) {
  using nlohmann::json;
  json benchmarks = json::array(), jcases = json::array();
  for (const SynthCase& c : cases) {
    std::vector<double> sorted = c.samples_us;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
    const double p10 = sorted.empty() ? 0 : sorted[sorted.size() / 10];
    const double p90 = sorted.empty() ? 0 : sorted[sorted.size() * 9 / 10];
    const double max = sorted.empty() ? 0 : sorted.back();
    ResultCase shape;
    parse_case_name(c.name, shape);
    const double algbw = median > 0 ? double(shape.bytes) / (median * 1e3) : 0;
    const double busbw = shape.world ? algbw * 2 * (shape.world - 1) / shape.world : 0;
    if (c.ok) {
      benchmarks.push_back({{"name", c.name},          {"run_name", c.name},
                            {"run_type", "iteration"}, {"repetitions", 1},
                            {"repetition_index", 0},   {"threads", 1},
                            {"iterations", 1},         {"real_time", median},
                            {"cpu_time", median},      {"time_unit", "us"},
                            {"algbw_GBps", algbw},     {"busbw_GBps", busbw},
                            {"p10_us", p10},           {"p50_us", median},
                            {"p90_us", p90},           {"p99_us", max},
                            {"pipelined_us", median},  {"samples", c.samples_us.size()},
                            {"wrong_elements", 0}});
    } else {
      benchmarks.push_back({{"name", c.name},          {"run_name", c.name},
                            {"run_type", "iteration"}, {"time_unit", "us"},
                            {"error_occurred", true},  {"error_message", "3 wrong elements"}});
    }
    jcases.push_back({{"name", c.name},          {"variant", shape.variant},
                      {"family", shape.family},  {"dtype", shape.dtype},
                      {"world", shape.world},    {"bytes", shape.bytes},
                      {"tokens", shape.tokens},  {"hidden", shape.hidden},
                      {"in_place", shape.in_place},       {"status", c.ok ? "ok" : "failed"},
                      {"reason", c.ok ? "" : "3 wrong elements"},
                      {"samples_us", c.samples_us},
                      {"median_us", median},     {"p10_us", p10},
                      {"p50_us", median},        {"p90_us", p90},
                      {"p99_us", max},           {"pipelined_us", median},
                      {"algbw_GBps", algbw},     {"busbw_GBps", busbw},
                      {"wrong_elements", c.ok ? 0 : 3},
                      {"settings", json::object()}});
    if (c.max_abs_err) jcases.back()["max_abs_err"] = *c.max_abs_err;
    if (c.rms_rel_err) jcases.back()["rms_rel_err"] = *c.rms_rel_err;
    if (c.sol_us) {
      jcases.back()["sol_us"] = *c.sol_us;
      jcases.back()["pct_of_sol"] = median > 0 ? 100 * *c.sol_us / median : 0;
      jcases.back()["sol"] = {{"schedule", "synthetic"}, {"timing", "gpu"}, {"below_floor", median < *c.sol_us}};
    }
  }
  json prov = {{"arbench_version", "0.1.0"},  {"arbench_revision", "test"},
               {"command_line", "arbench run"}, {"backend", "cuda"},
               {"timing", "gpu"},             {"gpus", json::array()},
               {"driver", "580.65"},          {"cuda_runtime", "13.0"},
               {"nccl_version", "2.28.3"},    {"nccl_env", json::object()},
               {"host_name", "box1"},         {"cpu_model", "AMD EPYC"},
               {"fingerprint", fingerprint},  {"fingerprint_fields", fields}};
  return {{"context", {{"date", "2026-12-02T00:00:00+00:00"}, {"host_name", "box1"},
                       {"executable", "arbench"}, {"num_cpus", 64}}},
          {"benchmarks", benchmarks},
          {"arbench", {{"schema_version", 1}, {"provenance", prov}, {"config", json::object()},
                       {"cases", jcases}, {"skipped", json::array()}}}};
}

// A fresh file under the temp directory holding `text`; unique per process and call.
inline std::string write_temp(const std::string& text, const std::string& stem) {
  const auto dir = std::filesystem::temp_directory_path() / "arbench_report_tests";
  std::filesystem::create_directories(dir);
  static int counter = 0;
  const auto path = dir / (stem + "_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++) + ".json");
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace arbench::testing
