// tune on a synthetic result with known winners and crossovers:
//   oneshot-push 5 + b/1000 us, twoshot 8 + b/2000 us, nccl 25 + b/4000 us
// so oneshot wins below 6000 B, twoshot up to 68000 B and nccl above; at 4 GPUs two variants
// are indistinguishable (margin not significant); one failed case must be ignored.
#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>

#include "arbench/core/errors.hpp"
#include "analysis/tune.hpp"
#include "arbench/variant.hpp"
#include "analysis/tune_report.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using testing::ar_name;
using testing::fused_name;
using testing::jittered;

// A case of each of `variants` (its name and median, us: 30 samples within 1%) on `world` ranks at
// every power of two from 1 KiB to `max_bytes`, the variants in their order at each size; the
// samples' seeds count on from `seed`.
void add_sized_cases(std::vector<testing::SynthCase>& cases,
                     std::initializer_list<std::pair<const char*, double>> variants, int world,
                     std::uint64_t max_bytes, unsigned& seed) {
  for (std::uint64_t b = 1024; b <= max_bytes; b *= 2)
    for (const auto& [name, median] : variants)
      cases.push_back({ar_name(name, world, b), jittered(median, 0.01, 30, seed++)});
}

ResultFile synthetic() {
  std::vector<testing::SynthCase> cases;
  unsigned seed = 1;
  for (std::uint64_t b = 1024; b <= (1u << 20); b *= 2) {
    const double x = double(b);
    cases.push_back({ar_name("oneshot-push", 8, b), jittered(5 + x / 1000, 0.01, 30, seed++)});
    cases.push_back({ar_name("twoshot", 8, b), jittered(8 + x / 2000, 0.01, 30, seed++)});
    cases.push_back({ar_name("nccl", 8, b), jittered(25 + x / 4000, 0.01, 30, seed++)});
    // 4 GPUs: the same distribution twice (a toss-up), and a failure.
    cases.push_back({ar_name("ring", 4, b), jittered(30, 0.05, 30, 7)});
    cases.push_back({ar_name("nccl", 4, b), jittered(30, 0.05, 30, 8)});
  }
  cases.push_back({ar_name("oneshot-pull", 4, 1024), {}, false});
  // In-place runs are their own table, even where the variant also ran out of place.
  cases.push_back({ar_name("twoshot", 8, 1024) + "/inplace", jittered(4, 0.01, 30, 99)});
  for (int tokens : {1, 16, 256}) {
    const double t = tokens;
    cases.push_back(
        {fused_name("fused-oneshot", 8, tokens, 8192), jittered(10 + t, 0.01, 30, seed++)});
    cases.push_back(
        {fused_name("unfused-nccl", 8, tokens, 8192), jittered(40 + t / 4, 0.01, 30, seed++)});
  }
  return parse_result_json(testing::make_result(cases), "synthetic.json");
}

const TuneTable& find(const TuneReport& r, const std::string& family, int world,
                      bool in_place = false) {
  for (const TuneTable& t : r.tables)
    if (t.family == family && t.world == world && t.in_place == in_place) return t;
  throw std::runtime_error("no table");
}

TEST(Tune, WinnersAndCrossovers) {
  const TuneReport rep = tune_results(synthetic(), 0.01);
  ASSERT_EQ(rep.tables.size(), 4u);
  const TuneTable& t = find(rep, "allreduce", 8);
  EXPECT_FALSE(t.in_place);
  EXPECT_EQ(t.axis, "bytes");
  ASSERT_EQ(t.points.size(), 11u);
  EXPECT_EQ(t.points[0].best, "oneshot-push");     // 1 KiB
  EXPECT_EQ(t.points[2].best, "oneshot-push");     // 4 KiB
  EXPECT_EQ(t.points[3].best, "twoshot");          // 8 KiB
  EXPECT_EQ(t.points[6].best, "twoshot");          // 64 KiB
  EXPECT_EQ(t.points[7].best, "nccl");             // 128 KiB
  EXPECT_EQ(t.points[0].runner_up, "twoshot");
  EXPECT_NEAR(t.points[0].margin, (8 + 1.024 / 2) / (5 + 1.024) - 1, 0.02);
  EXPECT_TRUE(t.points[0].significant);
  EXPECT_EQ(t.points[0].candidates, 3);
  ASSERT_EQ(t.crossovers.size(), 2u);
  EXPECT_EQ(t.crossovers[0].from, "oneshot-push");
  EXPECT_EQ(t.crossovers[0].to, "twoshot");
  EXPECT_EQ(t.crossovers[0].last_from, 4096u);
  EXPECT_EQ(t.crossovers[0].first_to, 8192u);
  EXPECT_EQ(t.crossovers[1].last_from, 65536u);
  EXPECT_EQ(t.crossovers[1].first_to, 131072u);
  ASSERT_EQ(t.rules.size(), 3u);
  EXPECT_EQ(t.rules[0].max_size, 4096u);
  EXPECT_EQ(t.rules[1].variant, "twoshot");
  EXPECT_TRUE(t.rules[2].unbounded);
  EXPECT_EQ(t.rules[2].variant, "nccl");
}

TEST(Tune, TossUpIsNotSignificantAndFailuresAreIgnored) {
  const TuneReport rep = tune_results(synthetic(), 0.01);
  const TuneTable& t = find(rep, "allreduce", 4);
  ASSERT_FALSE(t.points.empty());
  for (const TunePoint& p : t.points) {
    EXPECT_FALSE(p.significant) << p.size;
    EXPECT_EQ(p.candidates, 2);  // the failed oneshot-pull is not a candidate
  }
  ASSERT_EQ(rep.ignored.size(), 1u);
  EXPECT_NE(rep.ignored[0].find("oneshot-pull"), std::string::npos);
}

TEST(Tune, InPlaceIsASeparateTable) {
  const TuneReport rep = tune_results(synthetic(), 0.01);
  const TuneTable& t = find(rep, "allreduce", 8, true);
  ASSERT_EQ(t.points.size(), 1u);
  EXPECT_EQ(t.points[0].best, "twoshot");
  EXPECT_EQ(t.points[0].candidates, 1);
  EXPECT_NE(format_tune(rep, ReportFormat::text).find("allreduce bf16, 8 GPUs, in-place"),
            std::string::npos);
}

// --cache cold is a table of its own; --skew cases are what-ifs, listed as ignored, never a
// candidate (here the skewed twoshot would otherwise win the hot table).
TEST(Tune, ColdCacheIsASeparateTableAndSkewedCasesAreIgnored) {
  std::vector<testing::SynthCase> cases = {
      {ar_name("oneshot-push", 8, 1024), jittered(5, 0.01, 30, 1)},
      {ar_name("twoshot", 8, 1024), jittered(8, 0.01, 30, 2)},
      {ar_name("twoshot", 8, 1024) + "/cold", jittered(3, 0.01, 30, 3)},
      {ar_name("twoshot", 8, 1024) + "/skew:5", jittered(1, 0.01, 30, 4)},
  };
  const TuneReport rep = tune_results(parse_result_json(testing::make_result(cases), "cold.json"), 0.01);
  ASSERT_EQ(rep.tables.size(), 2u);
  for (const TuneTable& t : rep.tables) {
    ASSERT_EQ(t.points.size(), 1u);
    EXPECT_EQ(t.points[0].best, t.cold_cache ? "twoshot" : "oneshot-push") << t.cold_cache;
    EXPECT_EQ(t.points[0].candidates, t.cold_cache ? 1 : 2) << t.cold_cache;
  }
  ASSERT_EQ(rep.ignored.size(), 1u);
  EXPECT_NE(rep.ignored[0].find("arrival skew"), std::string::npos) << rep.ignored[0];
}

// A low-precision variant (error figures in its cases) is faster here but never a candidate: a
// dispatch table would switch the engine to FP8 without showing the error. It is listed once.
TEST(Tune, NeverPicksALowPrecisionVariant) {
  std::vector<testing::SynthCase> cases = {
      {ar_name("oneshot-pull", 8, 1 << 20), jittered(50, 0.01, 30, 1)},
      {ar_name("twoshot", 8, 1 << 20), jittered(40, 0.01, 30, 2)},
  };
  for (std::uint64_t b : {std::uint64_t(1) << 20, std::uint64_t(1) << 21})
    cases.push_back({ar_name("twoshot-fp8", 8, b), jittered(20, 0.01, 30, unsigned(b % 97)), true, 0.02, 0.01});
  const TuneReport rep = tune_results(parse_result_json(testing::make_result(cases), "fp8.json"), 0.01);
  ASSERT_EQ(rep.tables.size(), 1u);
  ASSERT_EQ(rep.tables[0].points.size(), 1u);
  EXPECT_EQ(rep.tables[0].points[0].best, "twoshot");
  EXPECT_EQ(rep.tables[0].points[0].candidates, 2);
  ASSERT_EQ(rep.ignored.size(), 1u);
  EXPECT_NE(rep.ignored[0].find("twoshot-fp8 (2 cases): low precision"), std::string::npos) << rep.ignored[0];
}

TEST(Tune, FusedTablesUseTokens) {
  const TuneReport rep = tune_results(synthetic(), 0.01);
  const TuneTable& t = find(rep, "allreduce_rmsnorm", 8);
  EXPECT_EQ(t.axis, "tokens");
  EXPECT_EQ(t.hidden, 8192);
  ASSERT_EQ(t.points.size(), 3u);
  EXPECT_EQ(t.points[0].best, "fused-oneshot");  // 11 vs 40.25
  EXPECT_EQ(t.points[2].best, "unfused-nccl");   // 266 vs 104
  ASSERT_EQ(t.crossovers.size(), 1u);
  EXPECT_EQ(t.crossovers[0].last_from, 16u);
}

TEST(Tune, DispatchTableJson) {
  const json j = dispatch_table_json(tune_results(synthetic(), 0.01));
  EXPECT_EQ(j["schema"], "arbench-dispatch-table");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["source"]["fingerprint"], "0123456789abcdef");
  const json* t8 = nullptr;
  for (const json& t : j["tables"])
    if (t["family"] == "allreduce" && t["world"] == 8 && !t["in_place"].get<bool>()) t8 = &t;
  ASSERT_NE(t8, nullptr);
  EXPECT_EQ((*t8)["rules"][0], json({{"max", 4096}, {"variant", "oneshot-push"}}));
  EXPECT_TRUE((*t8)["rules"][2]["max"].is_null());
  EXPECT_EQ((*t8)["crossovers"][1], json({{"from", "twoshot"}, {"to", "nccl"}, {"after", 65536},
                                          {"before", 131072}}));
  EXPECT_FALSE(t8->contains("hidden"));
  EXPECT_TRUE((*t8)["points"][0]["significant"].get<bool>());
}

TEST(Tune, HumanTables) {
  const TuneReport rep = tune_results(synthetic(), 0.01);
  const std::string text = format_tune(rep, ReportFormat::text);
  EXPECT_NE(text.find("allreduce bf16, 8 GPUs"), std::string::npos) << text;
  EXPECT_NE(text.find("oneshot-push -> twoshot between 4 KiB and 8 KiB"), std::string::npos);
  const std::string md = format_tune(rep, ReportFormat::markdown);
  EXPECT_NE(md.find("#### allreduce_rmsnorm bf16, 8 GPUs, hidden 8192"), std::string::npos);
  EXPECT_EQ(format_size(1u << 20, "bytes"), "1 MiB");
  EXPECT_EQ(format_size(1536, "bytes"), "1536 B");
}

TEST(Tune, NothingToTuneIsUnusableInput) {
  const json plain = {{"benchmarks", {{{"name", "BM_A"}, {"real_time", 1.0}}}}};
  EXPECT_THROW(tune_results(parse_result_json(plain, "p"), 0.01), UsageError);
}

}  // namespace
}  // namespace arbench

namespace arbench {
namespace {

// A dispatch table must only name variants that exist on GPUs. Here `reference` (host only in
// the registry) is the fastest at every size: without the registry's filter it wins every
// point; with it, it competes nowhere and is listed as ignored, once, with the reason.
TEST(Tune, NeverPicksAVariantMissingOnTheCudaBackend) {
  Registry reg;
  for (const char* name : {"reference", "oneshot-push", "twoshot"}) {
    VariantEntry e;
    e.name = name;
    e.host = [] { return std::unique_ptr<Variant>(); };
    if (std::string(name) != "reference") e.gpu = [] { return std::unique_ptr<Variant>(); };
    e.no_gpu_reason = "host only: the yardstick the twins are checked against";
    reg.add(e);
  }
  std::vector<testing::SynthCase> cases;
  unsigned seed = 1;
  add_sized_cases(cases, {{"reference", 1}, {"oneshot-push", 5}, {"twoshot", 8}}, 8, 8192, seed);
  const ResultFile result = parse_result_json(testing::make_result(cases), "host.json");
  EXPECT_EQ(tune_results(result, 0.01).tables.at(0).points.at(0).best, "reference");  // the unfiltered ranking

  const auto not_on_gpus = [&](const std::string& v, DispatchPlace) { return reg.unavailable_reason(v, Backend::cuda); };
  const TuneReport rep = tune_results(result, 0.01, not_on_gpus);
  for (const TuneTable& t : rep.tables) {
    for (const TunePoint& p : t.points) {
      EXPECT_NE(p.best, "reference");
      EXPECT_NE(p.runner_up, "reference");
    }
    for (const DispatchRule& r : t.rules) EXPECT_NE(r.variant, "reference");
  }
  EXPECT_EQ(rep.tables.at(0).points.at(0).best, "oneshot-push");
  ASSERT_EQ(rep.ignored.size(), 1u);
  EXPECT_NE(rep.ignored[0].find("reference (4 cases): not a dispatch candidate"), std::string::npos) << rep.ignored[0];
  EXPECT_NE(rep.ignored[0].find("host only"), std::string::npos) << rep.ignored[0];
}

// A registry with peer `name` (not built here: no factory) and arbench's oneshot-push.
Registry peer_beside_own(const std::string& name, const std::string& project, std::vector<std::string> configs) {
  Registry reg;
  VariantEntry peer;
  peer.name = name;
  peer.peer = project;
  peer.configs = std::move(configs);
  peer.no_gpu_reason = "peers off: no " + project;
  reg.add(peer);
  VariantEntry own;
  own.name = "oneshot-push";
  own.gpu = [] { return std::unique_ptr<Variant>(); };
  reg.add(own);
  return reg;
}

// Peers (docs/variants.md, "Peers") through the registry's filter: a peer as it selects competes
// even where this arbench was not built with it (no factory: the result came from one that was);
// a forced schedule no engine can choose is ignored, saying so; arbench's own GPU variants compete.
TEST(Tune, PeersCompeteWhereAnEngineCanChooseThem) {
  const Registry reg = peer_beside_own("flashinfer-pcie-ipc", "FlashInfer", {"staged"});
  std::vector<testing::SynthCase> cases;
  unsigned seed = 1;
  add_sized_cases(cases, {{"flashinfer-pcie-ipc", 3}, {"flashinfer-pcie-ipc[staged]", 1}, {"oneshot-push", 5}}, 8, 4096,
                  seed);
  const ResultFile result = parse_result_json(testing::make_result(cases), "gpu.json");
  const TuneReport rep = tune_results(result, 0.01, registry_dispatch_filter(reg));
  ASSERT_FALSE(rep.tables.empty());
  for (const TunePoint& p : rep.tables.at(0).points) {
    EXPECT_EQ(p.best, "flashinfer-pcie-ipc");
    EXPECT_EQ(p.runner_up, "oneshot-push");
  }
  ASSERT_EQ(rep.ignored.size(), 1u);
  EXPECT_NE(rep.ignored[0].find("flashinfer-pcie-ipc[staged] (3 cases): not a dispatch candidate, no engine selects it: "
                                "no engine forces a PCIe-IPC schedule"),
            std::string::npos)
      << rep.ignored[0];
}

// vLLM's custom all-reduce, fastest everywhere in a run at 2, 4 and 8 GPUs over PCIe: dispatched at
// 2 only (vLLM turns it off above two GPUs not all NVLink-connected: the rule `settings` gates
// with); at 4 and 8 the next variant wins, and where the result records NVLink at 4 it competes.
TEST(Tune, VllmCustomDispatchedWhereVllmRunsIt) {
  const Registry reg = peer_beside_own("vllm-custom", "vLLM", {});
  std::vector<testing::SynthCase> cases;
  unsigned seed = 1;
  for (int w : {2, 4, 8}) add_sized_cases(cases, {{"vllm-custom", 2}, {"oneshot-push", 5}}, w, 4096, seed);
  json j = testing::make_result(cases);
  const TuneReport pcie = tune_results(parse_result_json(j, "pcie.json"), 0.01, registry_dispatch_filter(reg));
  for (int w : {2, 4, 8})
    for (const DispatchRule& r : find(pcie, "allreduce", w).rules)
      EXPECT_EQ(r.variant, w == 2 ? "vllm-custom" : "oneshot-push") << w;
  ASSERT_EQ(pcie.ignored.size(), 1u);
  EXPECT_NE(pcie.ignored[0].find("vllm-custom (6 cases): not a dispatch candidate, no engine selects it: vLLM turns its "
                                 "custom all-reduce off on more than two GPUs"),
            std::string::npos)
      << pcie.ignored[0];
  j["arbench"]["provenance"]["nvlink_all_pairs"] = {{"2", false}, {"4", true}, {"8", false}};
  const TuneReport nvlink4 = tune_results(parse_result_json(j, "nvlink4.json"), 0.01, registry_dispatch_filter(reg));
  EXPECT_EQ(find(nvlink4, "allreduce", 4).rules.back().variant, "vllm-custom");
  EXPECT_EQ(find(nvlink4, "allreduce", 8).rules.back().variant, "oneshot-push");
  // Labelled with the engine that runs it so, whether it competed or not.
  EXPECT_NE(pcie.peer_labels.at("vllm-custom").find("as vLLM runs it"), std::string::npos);
  EXPECT_NE(format_tune(pcie, ReportFormat::text).find("vllm-custom: as vLLM runs it"), std::string::npos);
}

}  // namespace
}  // namespace arbench

namespace arbench {
namespace {

// The hand-off of the island variants: a table whose cases include island variants carries the
// islands they ran on (their settings), so an engine dispatching to them cuts its ranks alike;
// tables without island variants carry none.
TEST(Tune, IslandTablesCarryTheirIslands) {
  std::vector<testing::SynthCase> cases;
  unsigned seed = 1;
  for (std::uint64_t b = 1024; b <= 65536; b *= 4) {
    cases.push_back({ar_name("oneshot-push", 8, b), jittered(5 + double(b) / 1000, 0.01, 30, seed++)});
    cases.push_back({ar_name("island-twoshot", 8, b), jittered(9 + double(b) / 8000, 0.01, 30, seed++)});
    cases.push_back({ar_name("twoshot", 4, b), jittered(8, 0.01, 30, seed++)});
  }
  json j = testing::make_result(cases);
  for (json& c : j["arbench"]["cases"])
    if (c["variant"] == "island-twoshot") c["settings"] = {{"islands", "0-3,4-7"}, {"cross_path", "p2p"}};
  const TuneReport rep = tune_results(parse_result_json(j, "islands.json"), 0.01);
  EXPECT_EQ(find(rep, "allreduce", 8).islands, "0-3,4-7");
  EXPECT_EQ(find(rep, "allreduce", 8).rules.back().variant, "island-twoshot");
  EXPECT_TRUE(find(rep, "allreduce", 4).islands.empty());
  const json table = dispatch_table_json(rep);
  for (const json& t : table["tables"]) {
    if (t["world"] == 8) {
      EXPECT_EQ(t["islands"], "0-3,4-7");
    } else {
      EXPECT_FALSE(t.contains("islands"));
    }
  }
}

}  // namespace
}  // namespace arbench
