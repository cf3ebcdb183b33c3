// `arbench settings` on the committed fixture results (tests/fixtures/settings/make_fixtures.py
// says what each holds): the plugin table, NCCL's example-plugin file and the engine settings are
// compared with the golden files next to them (ARBENCH_UPDATE_GOLDEN=1 rewrites those, for a
// deliberate change: review the diff), and the properties that must hold whatever the wording
// are checked one by one: where each crossover lies, every size covered with explicit channels,
// no LL128 over PCIe, what is gated, what is missing and the line that measures it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "arbench/tuner/tuner_table_text.hpp"
#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

using testing::FixtureSettings;
using testing::fixture_path;
using testing::portable;
using testing::read_text;
using testing::settings_of;

void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = fixture_path("golden/" + name);
  if (std::getenv("ARBENCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(actual, read_text(path)) << "the output differs from " << path
                                     << "; if the change is deliberate, rerun with ARBENCH_UPDATE_GOLDEN=1 and review "
                                        "the diff";
}

void check_all_golden(const std::string& fixture) {
  const FixtureSettings f = settings_of(fixture_path(fixture + ".json"));
  check_golden(fixture + ".table", portable(f.report.table_text));
  check_golden(fixture + ".conf", portable(f.report.example_conf_text));
  check_golden(fixture + ".txt", portable(format_settings(f.report)));
}

// The engine settings of `fixture` for given versions (`name`: the golden's suffix).
void check_versions_golden(const std::string& fixture, const std::string& name, const StackVersions& stack) {
  SettingsOptions opt = testing::fixed_paths();
  opt.stack = stack;
  const FixtureSettings f = settings_of(fixture_path(fixture + ".json"), opt);
  check_golden(fixture + "." + name + ".txt", portable(format_settings(f.report)));
}

StackVersions stack_of(const std::string& vllm, const std::string& nccl) {
  StackVersions s;
  if (!vllm.empty()) s.engines["vllm"] = *parse_version(vllm);
  if (!nccl.empty()) s.nccl = parse_version(nccl);
  s.source = "--engine/--nccl";
  return s;
}

TEST(SettingsGolden, Pcie8Crossovers) { check_all_golden("pcie8-crossovers"); }
TEST(SettingsGolden, NcclDefaultWins) { check_all_golden("nccl-default-wins"); }
TEST(SettingsGolden, NoFusedFamily) { check_all_golden("no-fused"); }
TEST(SettingsGolden, NvlinkSm100) { check_all_golden("nvlink-sm100"); }
TEST(SettingsGolden, WhatIfCasesLeftOut) { check_all_golden("what-ifs"); }
TEST(SettingsGolden, PeersMeasured) { check_all_golden("peers-pcie8"); }
// The same fixture for vLLM before and after PR #33839's size rule, and with NCCL 2.29.2.
TEST(SettingsGolden, Pcie8CrossoversForVllm016) { check_versions_golden("pcie8-crossovers", "vllm-0.16.0", stack_of("0.16.0", "")); }
TEST(SettingsGolden, Pcie8CrossoversForVllm017) { check_versions_golden("pcie8-crossovers", "vllm-0.17.0", stack_of("0.17.0", "")); }
// The docs' example (vLLM 0.11.0, torch 2.9.0, NCCL 2.27.7): test_settings_docs_example.cpp checks
// its lines one by one by hand.
TEST(SettingsGolden, Pcie8CrossoversForTheDocsExample) {
  check_versions_golden("pcie8-crossovers", "docs-example", testing::docs_example_stack());
}
TEST(SettingsGolden, Pcie8CrossoversForNccl2292) {
  check_versions_golden("pcie8-crossovers", "vllm-0.16.0-nccl-2.29.2", stack_of("0.16.0", "2.29.2"));
}

// The example-plugin file: for each GPU count with rows, rows from 0 to the largest measured size
// without a gap, an explicit channel count on each, NCCL's ten fields, lines the example plugin's
// 256-byte buffer holds, and LL128 only where every GPU pair is NVLink-connected.
void check_example_conf(const std::string& conf, bool nvlink, std::uint64_t max_bytes) {
  std::map<int, std::uint64_t> next;  // nranks -> first byte not yet covered
  std::istringstream in(conf);
  for (std::string line; std::getline(in, line);) {
    EXPECT_LT(line.size(), 255u) << line;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 10u) << line;
    EXPECT_EQ(f[0], "allreduce");
    EXPECT_TRUE(f[3] == "ring" || f[3] == "tree") << line;
    EXPECT_TRUE(f[4] == "ll" || f[4] == "simple" || (nvlink && f[4] == "ll128")) << "LL128 over PCIe: " << line;
    EXPECT_GE(std::stoi(f[5]), 1) << "no explicit channel count: " << line;
    const int nranks = std::stoi(f[7]);
    EXPECT_EQ(std::stoull(f[1]), next[nranks]) << "a gap or an overlap before " << line;
    next[nranks] = std::stoull(f[2]) + 1;
  }
  ASSERT_FALSE(next.empty());
  for (const auto& [nranks, first_uncovered] : next) EXPECT_EQ(first_uncovered, max_bytes + 1) << nranks << " ranks";
}

TEST(SettingsFixtures, Pcie8CrossoversGiveTheMeasuredRules) {
  const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"));
  tuner::Table t;
  ASSERT_EQ(tuner::parse_table(f.report.table_text, t), "");  // what the plugin will read
  EXPECT_EQ(t.nccl_major, 2);
  EXPECT_EQ(t.nccl_minor, 28);
  EXPECT_EQ(t.machine.cpu, "AMD EPYC 9575F 64-Core Processor");
  EXPECT_EQ(t.machine.gpus, std::vector<std::string>{"NVIDIA RTX PRO 6000 Blackwell Server Edition"});
  EXPECT_EQ(t.machine.cuda_driver, "13.0");
  struct Want {
    int nranks;
    std::uint64_t size;
    int algo, proto, channels;  // algo -1: no rule (NCCL's own choice)
  };
  const Want wants[] = {
      // 8 GPUs: ring/ll on 4 channels up to 64 KiB, ring/simple on 8 up to 2 MiB, NCCL's choice above.
      {8, 0, tuner::kAlgoRing, tuner::kProtoLL, 4},
      {8, 65536, tuner::kAlgoRing, tuner::kProtoLL, 4},
      {8, 65537, tuner::kAlgoRing, tuner::kProtoSimple, 8},
      {8, 2 << 20, tuner::kAlgoRing, tuner::kProtoSimple, 8},
      {8, (2 << 20) + 1, -1, 0, 0},
      {8, 16 << 20, -1, 0, 0},
      // 4 GPUs: NCCL's choice up to 4 KiB, ring/ll on 4 channels up to 128 KiB, NCCL's choice above.
      {4, 4096, -1, 0, 0},
      {4, 4097, tuner::kAlgoRing, tuner::kProtoLL, 4},
      {4, 131072, tuner::kAlgoRing, tuner::kProtoLL, 4},
      {4, 131073, -1, 0, 0},
      // 2 GPUs: ring/ll on 2 channels up to 256 KiB, ring/simple on 4 to 16 MiB, nothing above.
      {2, 262144, tuner::kAlgoRing, tuner::kProtoLL, 2},
      {2, 262145, tuner::kAlgoRing, tuner::kProtoSimple, 4},
      {2, 16 << 20, tuner::kAlgoRing, tuner::kProtoSimple, 4},
      {2, (16 << 20) + 1, -1, 0, 0},
  };
  for (const Want& w : wants) {
    const tuner::Rule* r = tuner::find_rule(t.rules, w.nranks, 1, w.size);
    if (w.algo < 0) {
      EXPECT_EQ(r, nullptr) << w.nranks << " ranks, " << w.size << " B";
      continue;
    }
    ASSERT_NE(r, nullptr) << w.nranks << " ranks, " << w.size << " B";
    EXPECT_EQ(r->algo, w.algo) << w.nranks << " ranks, " << w.size << " B";
    EXPECT_EQ(r->proto, w.proto) << w.nranks << " ranks, " << w.size << " B";
    EXPECT_EQ(r->channels, w.channels) << w.nranks << " ranks, " << w.size << " B";
  }
  // LL128 was the fastest configuration measured, but these GPUs are not NVLink-connected.
  for (const tuner::Rule& r : t.rules) EXPECT_NE(r.proto, tuner::kProtoLL128);
  EXPECT_NE(f.world(8).nccl.notes.front().find("15 LL128 cases left out"), std::string::npos);
  check_example_conf(f.report.example_conf_text, false, 16 << 20);
  EXPECT_EQ(f.report.example_conf_text.find("ll128"), std::string::npos);
  EXPECT_NE(f.report.example_conf_text.find("# machine fingerprint f1a2b3c4d5e6f708; measured with NCCL 2.28.9"),
            std::string::npos);
  EXPECT_NE(f.report.example_conf_text.find("pcie8-crossovers.json"), std::string::npos);

  // The verification: nccl[tuned] against nccl at 8 GPUs.
  int faster = 0, slower = 0;
  for (const Evidence& e : f.world(8).nccl.tuned) faster += e.beats, slower += e.loses;
  EXPECT_EQ(faster, 12);
  EXPECT_EQ(slower, 0);
}

TEST(SettingsFixtures, Pcie8CrossoversGiveTheEngineSettings) {
  const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"));
  // 8 GPUs over PCIe: vLLM's custom all-reduce is gated; NCCL symmetric memory loses at the small
  // sizes vLLM (from 0.17.0) uses it at, so vLLM and SGLang (every size) keep it off
  // (test_settings_six_lines.cpp states each such line).
  EXPECT_EQ(f.setting(8, "vllm.custom_ar")->status, SettingStatus::gated);
  EXPECT_EQ(f.setting(8, "vllm.nccl_symm")->status, SettingStatus::keep);
  EXPECT_EQ(f.setting(8, "sglang.nccl_symm")->status, SettingStatus::keep);
  EXPECT_EQ(f.setting(8, "vllm.torch_symm")->status, SettingStatus::gated);
  EXPECT_EQ(f.setting(8, "sglang.fusion")->status, SettingStatus::gated);  // SM90/SM100 only
  // Fusion: the one-shot kernel vLLM runs on SM120 beats the best unfused pair up to 8 tokens x
  // 8192 x bf16 = 128 KiB; on SM120 it is a "try" (vLLM never enables it itself there).
  const EngineSetting* fusion = f.setting(8, "vllm.fusion");
  EXPECT_EQ(fusion->status, SettingStatus::try_it);
  EXPECT_NE(fusion->paste.find("\"fi_allreduce_fusion_max_size_mb\": 0.125}"), std::string::npos) << fusion->paste;
  EXPECT_EQ(f.world(8).findings.fusion.lead, 64u);
  EXPECT_NE(f.setting(2, "vllm.fusion")->paste.find("\"fi_allreduce_fusion_max_size_mb\": 0.125}"), std::string::npos);
  // 2 GPUs: vLLM's custom all-reduce runs (it is not gated at two), and wins up to 256 KiB.
  EXPECT_EQ(f.setting(2, "vllm.custom_ar")->status, SettingStatus::keep);
  EXPECT_EQ(f.world(2).findings.custom.lead, 256u << 10);
  EXPECT_EQ(f.setting(2, "vllm.nccl_symm")->status, SettingStatus::gated);  // from 4 GPUs
  // FlashInfer: one-shot up to 4 tokens measured, raised to the GPU count (two-shot needs more).
  EXPECT_EQ(f.setting(8, "flashinfer.use_oneshot")->paste, "use_oneshot=(token_num <= 8)");
  // The commands carry the plugin's variables and the "set" ones, never a "try" setting.
  const std::vector<std::string>& vllm = f.engine(8, "vLLM").command;
  ASSERT_EQ(vllm.size(), 3u);
  EXPECT_EQ(vllm[0], "NCCL_TUNER_PLUGIN=/opt/arbench/lib/libarbench-nccl-tuner.so \\");
  EXPECT_EQ(vllm[1], "ARBENCH_NCCL_TUNER_TABLE=/settings/arbench-nccl-tuner.table \\");
  EXPECT_EQ(vllm[2], "  vllm serve MODEL --tensor-parallel-size 8");
  for (const std::string& line : vllm) EXPECT_EQ(line.find("compilation-config"), std::string::npos);
}

TEST(SettingsFixtures, WhereNcclsDefaultWinsNothingIsForced) {
  const FixtureSettings f = settings_of(fixture_path("nccl-default-wins.json"));
  tuner::Table t;
  ASSERT_EQ(tuner::parse_table(f.report.table_text, t), "");
  EXPECT_TRUE(t.rules.empty());
  EXPECT_EQ(f.report.example_conf_text, "");  // the example plugin would only force one channel
  for (int w : {2, 8}) {
    EXPECT_EQ(f.setting(w, "nccl.tuner_plugin")->status, SettingStatus::keep);
    EXPECT_EQ(f.setting(w, "nccl.example_plugin"), nullptr);
    EXPECT_EQ(f.setting(w, "vllm.fusion")->status, SettingStatus::keep);
    // Over PCIe TensorRT-LLM runs NCCL whatever its strategy: nothing to set.
    EXPECT_EQ(f.setting(w, "trtllm.strategy")->status, SettingStatus::keep);
    EXPECT_EQ(f.setting(w, "trtllm.strategy")->paste, "");
    for (const EngineSection& e : f.world(w).engines)
      for (const std::string& line : e.command) EXPECT_EQ(line.find("NCCL_TUNER_PLUGIN"), std::string::npos);
  }
  EXPECT_EQ(f.setting(2, "vllm.custom_ar")->paste, "--disable-custom-all-reduce");
  EXPECT_EQ(f.engine(2, "vLLM").command.back(), "  --disable-custom-all-reduce");
  // SGLang, no version given: its newest entry, CustomAllReduceV2, runs NCCL over PCIe, which wins
  // here: nothing to set (up to 0.5.11 the flag is a `try`: test_settings_release_lines.cpp).
  EXPECT_EQ(f.setting(2, "sglang.custom_ar")->paste, "");
  EXPECT_EQ(f.setting(2, "sglang.custom_ar")->status, SettingStatus::keep);
}

TEST(SettingsFixtures, WithoutTheFusedFamilyOrChannelCountsTheMissingRunIsNamed) {
  const FixtureSettings f = settings_of(fixture_path("no-fused.json"));
  for (int w : {4, 8}) {
    const NcclPlan& p = f.world(w).nccl;
    ASSERT_EQ(p.rules().size(), 1u);
    EXPECT_EQ(p.rules()[0].max_bytes, 32768u);
    EXPECT_EQ(p.rules()[0].channels, 0);  // nccl[ring/ll]: NCCL keeps its channel count
    EXPECT_EQ(p.max_channels(false), 0);
    const EngineSetting* ex = f.setting(w, "nccl.example_plugin");
    EXPECT_EQ(ex->status, SettingStatus::missing);
    EXPECT_NE(ex->run_line.find("--nccl-channels 1,2,4,8,16"), std::string::npos) << ex->run_line;
    EXPECT_EQ(f.setting(w, "vllm.fusion")->status, SettingStatus::missing);
    EXPECT_NE(f.setting(w, "vllm.fusion")->run_line.find("--family allreduce_rmsnorm --dtype bf16 --hidden 8192"),
              std::string::npos);
    EXPECT_EQ(f.setting(w, "flashinfer.use_oneshot")->status, SettingStatus::missing);
    EXPECT_EQ(f.setting(w, "vllm.nccl_symm")->status, SettingStatus::missing);
    EXPECT_NE(f.setting(w, "vllm.nccl_symm")->run_line.find("--variants 'nccl,nccl-symm'"), std::string::npos);
    EXPECT_EQ(f.setting(w, "sglang.nccl_symm")->status, SettingStatus::missing);
  }
  EXPECT_EQ(f.report.example_conf_text, "");
}

TEST(SettingsFixtures, LL128IsChosenOnlyWhereEveryPairIsNvlinkConnected) {
  nlohmann::json j = nlohmann::json::parse(read_text(fixture_path("pcie8-crossovers.json")));
  for (auto& [w, all] : j["arbench"]["provenance"]["nvlink_all_pairs"].items()) all = true;
  const std::string path = ::testing::TempDir() + "/nvlink-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << j.dump();
  const FixtureSettings f = settings_of(path);
  for (int w : {2, 4, 8})
    for (const tuner::Rule& r : f.world(w).nccl.rules()) EXPECT_EQ(r.proto, tuner::kProtoLL128) << w;
  std::remove(path.c_str());
}

TEST(SettingsFixtures, TheMeasurementsChannelVariablesGoWithTheTable) {
  // A run with NCCL_MIN_CTAS=16 in its environment (provenance.nccl_env): NCCL read it once for
  // every communicator, so the rules' channel counts were capped at 16-channel communicators; the
  // engine must get the same. Other NCCL variables (NCCL_DEBUG, ...) are not carried.
  nlohmann::json j = nlohmann::json::parse(read_text(fixture_path("pcie8-crossovers.json")));
  j["arbench"]["provenance"]["nccl_env"] = {{"NCCL_MIN_CTAS", "16"}, {"NCCL_DEBUG", "INFO"}};
  const std::string path = ::testing::TempDir() + "/ctas-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << j.dump();
  const FixtureSettings f = settings_of(path);
  EXPECT_EQ(f.setting(8, "nccl.tuner_plugin")->paste,
            "NCCL_TUNER_PLUGIN=/opt/arbench/lib/libarbench-nccl-tuner.so "
            "ARBENCH_NCCL_TUNER_TABLE=/settings/arbench-nccl-tuner.table NCCL_MIN_CTAS=16");
  EXPECT_EQ(f.engine(8, "vLLM").command[2], "NCCL_MIN_CTAS=16 \\");
  // NCCL's example plugin is offered from NCCL 2.30.3 only (the fixture measured 2.28.9): given one.
  SettingsOptions newer = testing::fixed_paths();
  newer.stack.nccl = parse_version("2.30.3");
  newer.stack.source = "test";
  EXPECT_NE(settings_of(path, newer).setting(8, "nccl.example_plugin")->paste.find(" NCCL_MIN_CTAS=16"),
            std::string::npos);
  for (const EngineSection& e : f.world(8).engines)
    for (const std::string& line : e.command) EXPECT_EQ(line.find("NCCL_DEBUG"), std::string::npos);
  // Without it, no channel variable is added.
  EXPECT_EQ(settings_of(fixture_path("pcie8-crossovers.json")).setting(8, "nccl.tuner_plugin")->paste.find("CTAS"),
            std::string::npos);
  std::remove(path.c_str());
}

TEST(SettingsFixtures, TheJsonCarriesEveryWorldAndItsEvidence) {
  const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"));
  const nlohmann::json j = settings_json(f.report);
  EXPECT_EQ(j["schema"], "arbench-settings");
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["worlds"].size(), 3u);
  const nlohmann::json& w8 = j["worlds"][2];
  EXPECT_EQ(w8["world"], 8);
  EXPECT_EQ(w8["nvlink"], false);
  EXPECT_EQ(w8["nccl"]["max_channels"], 8);
  EXPECT_EQ(w8["nccl"]["ranges"][0]["variant"], "nccl[ring/ll/ch:4]");
  EXPECT_EQ(w8["nccl"]["ranges"][0]["evidence"].size(), 7u);  // 1 KiB .. 64 KiB
  EXPECT_EQ(w8["findings"]["fusion"]["lead"], 64);
  std::set<std::string> engines;
  for (const auto& e : w8["engines"]) {
    engines.insert(e["engine"].get<std::string>());
    for (const auto& s : e["settings"]) {
      EXPECT_FALSE(s["source"].get<std::string>().empty()) << s["knob"];
      if (s["status"] == "missing") {
        EXPECT_TRUE(s.contains("run_line")) << s["knob"];
      }
    }
  }
  EXPECT_EQ(engines, (std::set<std::string>{"NCCL", "vLLM", "SGLang", "TensorRT-LLM", "FlashInfer"}));
}

}  // namespace
}  // namespace arbench
