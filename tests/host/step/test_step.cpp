// `arbench step` arithmetic on a synthetic result whose answers are worked out by hand:
//   model hidden 1024, 10 layers -> 20 all-reduces per step, bf16 -> message = tokens x 2048 B
//   fused-oneshot  (allreduce_rmsnorm) tokens 1, 4 -> 10 us, 20 us   (2048 B, 8192 B)
//   unfused-nccl   (allreduce_rmsnorm) tokens 1, 4 -> 20 us, 80 us
//   oneshot-push   (allreduce)         2048 B, 8192 B -> 5 us, 20 us
//   nccl           (allreduce)         2048 B, 8192 B -> 15 us, 60 us  (left out: unfused-nccl is its fused form)
// batch 1, draft 0: 1 token, 2048 B: fused-oneshot 20 x 10 us = 0.2 ms, unfused-nccl 0.4 ms -> saving
//   0.2 ms = 50 %, ceiling 1 token / 0.2 ms = 5000 tok/s.
// batch 2, draft 0: 2 tokens, 4096 B, between the measured 2048 and 8192 B: on a log-log scale
//   fused-oneshot's 10 -> 20 us gives sqrt(10 x 20) = 14.142 us (linear in size would give 13.33,
//   linear in log size 15).
// batch 8, draft 0: 8 tokens, 16384 B: above every measured size -> refused, with the run line.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "step/step.hpp"
#include "step/step_report.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/core/models.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using testing::ar_name;
using testing::fused_name;

ResultFile synthetic(int world = 8) {
  std::vector<testing::SynthCase> cases = {
      {fused_name("fused-oneshot", world, 1, 1024), {10.0}},  {fused_name("fused-oneshot", world, 4, 1024), {20.0}},
      {fused_name("unfused-nccl", world, 1, 1024), {20.0}},   {fused_name("unfused-nccl", world, 4, 1024), {80.0}},
      {ar_name("oneshot-push", world, 2048), {5.0}},          {ar_name("oneshot-push", world, 8192), {20.0}},
      {ar_name("nccl", world, 2048), {15.0}},                 {ar_name("nccl", world, 8192), {60.0}},
      {fused_name("fused-twoshot", world, 1, 1024), {}, false},  // failed: ignored
  };
  return parse_result_json(testing::make_result(cases), "synthetic.json");
}

const StepModel kModel{"tiny", 1024, 10};

const StepRow& row(const StepReport& r, const std::string& variant, int batch, int draft) {
  for (const StepRow& x : r.tables.at(0).rows)
    if (x.variant == variant && x.batch == batch && x.draft == draft) return x;
  throw std::runtime_error("no row " + variant);
}

TEST(StepInterpolation, LogLogBetweenNeighboursExactAtPointsNeverOutside) {
  const LatencyPoints p = {{2048, 10}, {8192, 20}, {32768, 80}};
  EXPECT_DOUBLE_EQ(*interpolate_log_log(p, 2048), 10);
  EXPECT_DOUBLE_EQ(*interpolate_log_log(p, 8192), 20);
  EXPECT_DOUBLE_EQ(*interpolate_log_log(p, 32768), 80);
  EXPECT_NEAR(*interpolate_log_log(p, 4096), std::sqrt(200.0), 1e-12);  // geometric mean
  EXPECT_NEAR(*interpolate_log_log(p, 16384), 40, 1e-9);                // slope 1 there
  EXPECT_FALSE(interpolate_log_log(p, 2047));
  EXPECT_FALSE(interpolate_log_log(p, 32769));
  EXPECT_FALSE(interpolate_log_log({}, 10));
  EXPECT_DOUBLE_EQ(*interpolate_log_log({{64, 3}}, 64), 3);
  EXPECT_FALSE(interpolate_log_log({{64, 3}}, 65));
  EXPECT_FALSE(interpolate_log_log({{64, 0}, {128, 4}}, 100));  // a zero latency has no logarithm
}

TEST(Step, HandComputedCase) {
  StepOptions opt;
  opt.batch = {1, 2};
  opt.draft = {0};
  const StepReport r = project_step(synthetic(), kModel, opt);
  ASSERT_TRUE(r.missing.empty());
  EXPECT_EQ(r.allreduces_per_step, 20);
  EXPECT_EQ(r.dtype_bytes, 2);
  ASSERT_EQ(r.tables.size(), 1u);
  const StepTable& t = r.tables[0];
  EXPECT_EQ(t.world, 8);
  EXPECT_EQ(t.baseline, "unfused-nccl");
  const StepRow& f = row(r, "fused-oneshot", 1, 0);
  EXPECT_EQ(f.tokens, 1);
  EXPECT_EQ(f.message_bytes, 2048u);
  EXPECT_TRUE(f.includes_norm);
  EXPECT_FALSE(f.interpolated);
  EXPECT_DOUBLE_EQ(f.us_per_allreduce, 10);
  EXPECT_DOUBLE_EQ(f.ms_per_step, 0.2);
  EXPECT_DOUBLE_EQ(*f.saving_ms, 0.2);
  EXPECT_DOUBLE_EQ(*f.saving_fraction, 0.5);
  EXPECT_DOUBLE_EQ(f.tokens_per_s_ceiling, 5000);
  EXPECT_FALSE(f.comm_share);
  const StepRow& push = row(r, "oneshot-push", 1, 0);
  EXPECT_FALSE(push.includes_norm);
  EXPECT_EQ(push.family, "allreduce");
  EXPECT_DOUBLE_EQ(push.ms_per_step, 0.1);
  EXPECT_DOUBLE_EQ(*push.saving_fraction, 0.75);
  const StepRow& base = row(r, "unfused-nccl", 1, 0);
  EXPECT_DOUBLE_EQ(*base.saving_ms, 0);
  // The interpolated size: 2 tokens = 4096 B.
  const StepRow& mid = row(r, "fused-oneshot", 2, 0);
  EXPECT_EQ(mid.message_bytes, 4096u);
  EXPECT_TRUE(mid.interpolated);
  EXPECT_NEAR(mid.us_per_allreduce, std::sqrt(200.0), 1e-9);
  EXPECT_NEAR(mid.tokens_per_s_ceiling, 2 / (20 * std::sqrt(200.0) * 1e-6), 1e-6);
  // Rows of one (batch, draft): those with the norm fastest first, then the all-reduces alone
  // (oneshot-push is faster, but leaves the norm out: it is never ranked above a complete choice);
  // nccl is left out (its fused form ran); the failed case is listed as ignored.
  std::vector<std::string> order;
  for (const StepRow& x : t.rows)
    if (x.batch == 1) order.push_back(x.variant);
  EXPECT_EQ(order, (std::vector<std::string>{"fused-oneshot", "unfused-nccl", "oneshot-push"}));
  // The engine default beside the fastest complete choice.
  ASSERT_EQ(t.choices.size(), 2u);
  EXPECT_EQ(t.choices[0].default_variant, "unfused-nccl");
  EXPECT_EQ(t.choices[0].best_variant, "fused-oneshot");
  EXPECT_DOUBLE_EQ(t.choices[0].default_tps, 2500);
  EXPECT_DOUBLE_EQ(t.choices[0].best_tps, 5000);
  EXPECT_NE(t.choices[0].how.find("fuse_allreduce_rms"), std::string::npos);
  ASSERT_EQ(r.ignored.size(), 1u);
  EXPECT_NE(r.ignored[0].find("fused-twoshot"), std::string::npos);
  EXPECT_FALSE(t.notes.empty());  // norm = no rows are explained
}

TEST(Step, OnAGpuResultHostOnlyVariantsAreNoChoice) {
  std::vector<testing::SynthCase> cases = {
      {fused_name("unfused-nccl", 8, 1, 1024), {20.0}},
      {fused_name("fused-oneshot", 8, 1, 1024), {10.0}},
      {ar_name("reference", 8, 2048), {1.0}},  // the host yardstick, fastest of all here
  };
  const ResultFile gpu = parse_result_json(testing::make_result(cases), "gpu.json");  // backend cuda
  StepOptions opt;
  opt.not_on_gpus = [](const std::string& v) { return v == "reference" ? std::string("host only") : std::string(); };
  const StepReport r = project_step(gpu, kModel, opt);
  for (const StepRow& x : r.tables.at(0).rows) EXPECT_NE(x.variant, "reference");
  EXPECT_EQ(r.tables.at(0).rows.front().variant, "fused-oneshot");
  ASSERT_FALSE(r.ignored.empty());
  EXPECT_NE(r.ignored.back().find("reference (1 cases at 8 GPUs): no choice on GPUs: host only"), std::string::npos)
      << r.ignored.back();
  // A host result keeps them: there everything is a CPU twin.
  nlohmann::json host = testing::make_result(cases);
  host["arbench"]["provenance"]["backend"] = "host";
  const StepReport h = project_step(parse_result_json(host, "host.json"), kModel, opt);
  bool has_reference = false;
  for (const StepRow& x : h.tables.at(0).rows) has_reference = has_reference || x.variant == "reference";
  EXPECT_TRUE(has_reference);
}

TEST(Step, DraftTokensMultiplyTheMessage) {
  StepOptions opt;
  opt.batch = {1};
  opt.draft = {3};  // 4 tokens = 8192 B, a measured size
  const StepReport r = project_step(synthetic(), kModel, opt);
  const StepRow& f = row(r, "fused-oneshot", 1, 3);
  EXPECT_EQ(f.tokens, 4);
  EXPECT_EQ(f.message_bytes, 8192u);
  EXPECT_DOUBLE_EQ(f.ms_per_step, 0.4);
  EXPECT_DOUBLE_EQ(f.tokens_per_s_ceiling, 10000);
}

TEST(Step, RefusesToExtrapolateAndSaysWhatToRun) {
  StepOptions opt;
  opt.batch = {1, 8};
  opt.draft = {0};
  const StepReport r = project_step(synthetic(), kModel, opt);
  ASSERT_EQ(r.missing.size(), 2u);  // one group per family
  const MissingSizes& ar = r.missing[0];
  EXPECT_EQ(ar.family, "allreduce");
  EXPECT_EQ(ar.variants, std::vector<std::string>{"oneshot-push"});
  EXPECT_EQ(ar.missing_bytes, std::vector<std::uint64_t>{16384});
  EXPECT_EQ(ar.run_line,
            "arbench run --backend cuda --family allreduce --variants 'oneshot-push' --gpus 8 --dtype bf16 "
            "-b 2048 -e 16384 --out step-sizes.json");
  const MissingSizes& fu = r.missing[1];
  EXPECT_EQ(fu.family, "allreduce_rmsnorm");
  EXPECT_EQ(fu.variants, (std::vector<std::string>{"fused-oneshot", "unfused-nccl"}));
  EXPECT_EQ(fu.missing_tokens, std::vector<int>{8});
  EXPECT_EQ(fu.run_line,
            "arbench run --backend cuda --family allreduce_rmsnorm --variants 'fused-oneshot,unfused-nccl' --gpus 8 "
            "--dtype bf16 --hidden 1024 --tokens 1,8 --out step-sizes.json");
  const std::string text = format_missing(r);
  EXPECT_NE(text.find("missing 16 KiB (8 tokens)"), std::string::npos) << text;
  // The run line, broken with " \\" continuations to fit the console: one command again once joined.
  std::string joined;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "\\\n") == 0) {
      i = text.find_first_not_of(' ', i + 2) - 1;
      continue;
    }
    joined += text[i];
  }
  EXPECT_NE(joined.find(fu.run_line), std::string::npos) << text;
  // Below the smallest measured size is refused just the same.
  StepModel wide = kModel;
  wide.hidden = 512;  // no fused case at this width: allreduce only, 1 token = 1024 B < 2048 B
  opt.batch = {1};
  const StepReport below = project_step(synthetic(), wide, opt);
  ASSERT_EQ(below.missing.size(), 1u);
  EXPECT_EQ(below.missing[0].missing_bytes, std::vector<std::uint64_t>{1024});
}

TEST(Step, BaselineFallsBackAndSaysSo) {
  StepOptions opt;
  opt.variants = {"fused-oneshot", "oneshot-push", "nccl"};  // unfused-nccl filtered out: nccl stays
  const StepReport r = project_step(synthetic(), kModel, opt);
  const StepTable& t = r.tables.at(0);
  EXPECT_EQ(t.baseline, "nccl");
  EXPECT_NE(t.baseline_note.find("unfused-nccl is not among the projected variants"), std::string::npos) << t.baseline_note;
  EXPECT_NE(t.baseline_note.find("understated"), std::string::npos) << t.baseline_note;
  EXPECT_DOUBLE_EQ(*row(r, "fused-oneshot", 1, 0).saving_fraction, 1 - 10.0 / 15.0);
  opt.variants = {"fused-oneshot"};
  const StepReport none = project_step(synthetic(), kModel, opt);
  EXPECT_TRUE(none.tables.at(0).baseline.empty());
  EXPECT_FALSE(row(none, "fused-oneshot", 1, 0).saving_ms);
  opt.variants = {};
  opt.baseline = "oneshot-push";
  EXPECT_EQ(project_step(synthetic(), kModel, opt).tables.at(0).baseline, "oneshot-push");
  opt.baseline = "ring";
  EXPECT_THROW(project_step(synthetic(), kModel, opt), UsageError);
}

TEST(Step, StepMsGivesTheCommunicationShare) {
  StepOptions opt;
  opt.step_ms = 0.8;
  const StepReport r = project_step(synthetic(), kModel, opt);
  EXPECT_DOUBLE_EQ(*row(r, "fused-oneshot", 1, 0).comm_share, 0.25);
  EXPECT_NE(format_step(r, ReportFormat::text).find("25.0%"), std::string::npos);
  opt.batch = {1, 2};
  EXPECT_THROW(project_step(synthetic(), kModel, opt), UsageError);  // one step, one shape
}

TEST(Step, BadInputIsAUsageError) {
  StepOptions opt;
  EXPECT_THROW(project_step(synthetic(), StepModel{"x", 0, 10}, opt), UsageError);
  EXPECT_THROW(project_step(synthetic(), StepModel{"x", 1024, 0}, opt), UsageError);
  opt.worlds = {4};
  EXPECT_THROW(project_step(synthetic(), kModel, opt), UsageError);  // no case at 4 GPUs
  opt.worlds = {};
  opt.dtype = "fp16";
  EXPECT_THROW(project_step(synthetic(), kModel, opt), UsageError);  // no fp16 case
  opt.dtype = "bf16";
  opt.batch = {0};
  EXPECT_THROW(project_step(synthetic(), kModel, opt), UsageError);
  opt.batch = {1};
  opt.draft = {-1};
  EXPECT_THROW(project_step(synthetic(), kModel, opt), UsageError);
  opt.draft = {0};
  opt.step_ms = 0.0;
  EXPECT_THROW(project_step(synthetic(), kModel, opt), UsageError);
}

TEST(Step, JsonCarriesEveryRow) {
  StepOptions opt;
  const StepReport r = project_step(synthetic(), kModel, opt);
  const nlohmann::json j = step_file_json({r});
  EXPECT_EQ(j["schema"], "arbench-step");
  EXPECT_EQ(j["schema_version"], kStepSchemaVersion);
  EXPECT_EQ(j["source"]["result"], "synthetic.json");
  const auto& m = j["models"][0];
  EXPECT_EQ(m["allreduces_per_step"], 20);
  EXPECT_EQ(m["tables"][0]["baseline"], "unfused-nccl");
  ASSERT_EQ(m["tables"][0]["rows"].size(), 3u);
  const auto& first = m["tables"][0]["rows"][0];  // the fastest row with the norm
  EXPECT_EQ(first["variant"], "fused-oneshot");
  EXPECT_EQ(first["includes_norm"], true);
  EXPECT_DOUBLE_EQ(first["ms_per_step"].get<double>(), 0.2);
  EXPECT_TRUE(first["comm_share"].is_null());
  EXPECT_EQ(m["tables"][0]["rows"][2]["variant"], "oneshot-push");  // the all-reduce alone, ranked apart
  const auto& choice = m["tables"][0]["engine_default_vs_best"][0];
  EXPECT_EQ(choice["default"], "unfused-nccl");
  EXPECT_EQ(choice["best"], "fused-oneshot");
  EXPECT_DOUBLE_EQ(choice["best_tokens_per_s_ceiling"].get<double>(), 5000);
}

TEST(Step, PresetsKeepTheirNamesAndGainLayers) {
  for (const char* old_name : {"llama3-8b", "llama3-70b", "qwen3-32b", "deepseek-v3", "mixtral"})
    EXPECT_NE(find_model_preset(old_name), nullptr) << old_name;
  EXPECT_EQ(model_hidden("llama3-70b"), 8192);
  const ModelPreset* big = find_model_preset("llama3.1-405b");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->layers, 126);
  EXPECT_EQ(big->hidden, 16384);
  for (const auto& m : kModelPresets) {
    EXPECT_GT(m.layers, 0) << m.name;
    EXPECT_GT(m.hidden, 0) << m.name;
  }
}

}  // namespace
}  // namespace arbench

namespace arbench {
namespace {

// The island variants take part like the others: an all-reduce island variant whose fused form
// ran is left out in favour of it (island-oneshot -> fused-island-oneshot); one without stays.
TEST(Step, IslandVariantsAndTheirFusedForms) {
  std::vector<testing::SynthCase> cases = {
      {testing::fused_name("fused-island-oneshot", 8, 1, 1024), {9.0}},
      {testing::fused_name("fused-island-oneshot", 8, 4, 1024), {18.0}},
      {testing::ar_name("island-oneshot", 8, 2048), {6.0}},
      {testing::ar_name("island-oneshot", 8, 8192), {12.0}},
      {testing::ar_name("island-twoshot", 8, 2048), {8.0}},
      {testing::ar_name("island-twoshot", 8, 8192), {10.0}},
  };
  StepOptions opt;
  opt.batch = {1};
  const StepReport r = project_step(parse_result_json(testing::make_result(cases), "islands.json"), kModel, opt);
  std::vector<std::string> variants;
  for (const StepRow& x : r.tables.at(0).rows) variants.push_back(x.variant);
  // Complete choices (with the norm) rank first, then the all-reduces alone (step.hpp).
  EXPECT_EQ(variants, (std::vector<std::string>{"fused-island-oneshot", "island-twoshot"}));
}

}  // namespace
}  // namespace arbench
