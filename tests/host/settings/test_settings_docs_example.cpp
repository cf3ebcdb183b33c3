// The docs' example, `arbench settings results.json --engine vllm=0.11.0,torch=2.9.0 --nccl 2.27.7`
// on the committed fixture (pcie8-crossovers.json: 2, 4 and 8 RTX PRO 6000 over PCIe, SM120, measured
// with NCCL 2.28.9), line by line, each expectation written by hand from the catalogue's facts
// (knobs.cpp) rather than read back from the output. Its golden file
// (golden/pcie8-crossovers.docs-example.txt) holds the wording; this holds the decisions.
#include <gtest/gtest.h>

#include <set>

#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

using testing::FixtureSettings;

const FixtureSettings& example() {
  static const FixtureSettings f = [] {
    SettingsOptions opt = testing::fixed_paths();
    opt.stack = testing::docs_example_stack();
    return testing::settings_of(testing::fixture_path("pcie8-crossovers.json"), opt);
  }();
  return f;
}

using testing::contains;

struct Line {
  const char* knob;
  SettingStatus status;
  const char* paste;  // exact
  const char* why;    // a part of it ("" : not checked)
};

void expect_lines(int world, const std::string& engine, const std::vector<Line>& lines) {
  const EngineSection& sec = example().engine(world, engine);
  std::vector<std::string> got;
  for (const EngineSetting& s : sec.settings) got.push_back(s.knob);
  std::vector<std::string> want;
  for (const Line& l : lines) want.push_back(l.knob);
  EXPECT_EQ(got, want) << engine << " at " << world << " GPUs: the lines printed";
  for (const Line& l : lines) {
    const EngineSetting* s = example().setting(world, l.knob);
    ASSERT_NE(s, nullptr) << l.knob;
    EXPECT_EQ(s->status, l.status) << l.knob << " at " << world << ": " << s->why;
    EXPECT_EQ(s->paste, l.paste) << l.knob << " at " << world;
    EXPECT_TRUE(contains(s->why, l.why)) << l.knob << " at " << world << ": " << s->why;
  }
}

using S = SettingStatus;
constexpr const char* kNoPluginV4 = "NCCL 2.27.7 (--engine/--nccl), the one your engine loads, looks up tuner "
                                    "interfaces v4, v3 and v2 only";
constexpr const char* kFusion011 = "--compilation-config '{\"pass_config\": {\"enable_fi_allreduce_fusion\": true}}'";
constexpr const char* kNoIpc = "the vLLM release given has no VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC";
constexpr const char* kPcieIpcPr = "only in SGLang PR #34528 (open): not in a release we could find";
constexpr const char* kLowPrec = "unknown for which releases it compares the message with that count";
constexpr const char* kTrtPcie = "without NVLink between every GPU pair TensorRT-LLM runs NCCL for AUTO, ONESHOT and "
                                 "TWOSHOT";

TEST(DocsExample, TwoGpus) {
  // NCCL 2.27.7 cannot load arbench's plugin (v5/v6), and NCCL's example plugin reads its CSV file
  // from 2.27.5 but crashes on it up to 2.29.7: neither is pasted.
  expect_lines(2, "NCCL", {{"nccl.tuner_plugin", S::gated, "", kNoPluginV4},
                           {"nccl.example_plugin", S::gated, "",
                            "crashes on the first matching row up to 2.29.7; it is safe from 2.30.3"}});
  // vLLM 0.11.0: custom all-reduce runs at two GPUs, its one-stage kernel (judged as oneshot-pull)
  // wins up to 64 KiB; NCCL symmetric memory from 4 GPUs; the
  // fusion switch under its 0.11 name; the PCIe IPC variable does not exist before 0.32.0.
  expect_lines(2, "vLLM", {{"vllm.custom_ar", S::keep, "",
                            "arbench's oneshot-pull (the one-stage schedule the engine runs at 2 GPUs, up to 8 MiB) "
                            "beats NCCL up to 64 KiB"},
                           {"vllm.custom_ar_shots", S::gated, "", "at two GPUs it always runs its one-stage kernel"},
                           {"vllm.nccl_symm", S::gated, "", "vLLM uses NCCL symmetric memory on 4 or 8 GPUs only"},
                           {"vllm.torch_symm", S::gated, "", "no size table for capability 12.0"},
                           {"vllm.fusion", S::try_it, kFusion011, "sets only the switch"},
                           {"vllm.fi_pcie_ipc", S::gated, "", kNoIpc}});
  // SGLang (no version: its newest entries): V2 needs NVLink, the first kernel wins here; NCCL 2.27.7
  // runs symmetric kernels over PCIe, so the measured comparison decides (mixed: off).
  expect_lines(2, "SGLang", {{"sglang.custom_ar", S::try_it, "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0",
                              "CustomAllReduceV2 needs NVLink"},
                             {"sglang.fusion", S::gated, "", "SM90 and SM100 only"},
                             {"sglang.torch_symm", S::gated, "", "size tables for SM90 and SM100 only"},
                             {"sglang.nccl_symm", S::keep, "", "faster than on plain buffers at"},
                             {"sglang.pcie_ipc", S::gated, "", kPcieIpcPr}});
  expect_lines(2, "TensorRT-LLM", {{"trtllm.strategy", S::keep, "", kTrtPcie},
                                   {"trtllm.lowprecision", S::gated, "", kLowPrec}});
  expect_lines(2, "FlashInfer", {{"flashinfer.use_oneshot", S::try_it, "use_oneshot=(token_num <= 4)",
                                  "switches after 8192 tokens"}});
}

TEST(DocsExample, FourGpus) {
  expect_lines(4, "NCCL", {{"nccl.tuner_plugin", S::gated, "", kNoPluginV4},
                           {"nccl.example_plugin", S::gated, "", "from 2.30.3"}});
  // vLLM 0.11.0's symmetric-memory rule (at or above 2 MiB on 4 GPUs), where nccl-symm wins: NCCL
  // 2.27.7 runs the symmetric kernels over PCIe, so the gain can appear (try: release not pinned).
  expect_lines(4, "vLLM", {{"vllm.custom_ar", S::gated, "", "not all NVLink-connected"},
                           {"vllm.nccl_symm", S::try_it, "VLLM_USE_NCCL_SYMM_MEM=1 NCCL_CUMEM_ENABLE=1",
                            "slower at 0 of 4 sizes measured at or above 2 MiB"},
                           {"vllm.torch_symm", S::gated, "", ""},
                           {"vllm.fusion", S::try_it, kFusion011, ""},
                           {"vllm.fi_pcie_ipc", S::gated, "", kNoIpc}});
  expect_lines(4, "SGLang", {{"sglang.custom_ar", S::gated, "", "--disable-custom-all-reduce changes nothing here"},
                             {"sglang.fusion", S::gated, "", ""},
                             {"sglang.torch_symm", S::gated, "", ""},
                             {"sglang.nccl_symm", S::keep, "", ""},
                             {"sglang.pcie_ipc", S::gated, "", kPcieIpcPr}});
  expect_lines(4, "TensorRT-LLM", {{"trtllm.strategy", S::keep, "", "one strategy holds for every size, so NCCL stays"},
                                   {"trtllm.lowprecision", S::gated, "", kLowPrec}});
  expect_lines(4, "FlashInfer", {{"flashinfer.use_oneshot", S::try_it, "use_oneshot=(token_num <= 4)",
                                  "switches after 512 tokens"}});
}

TEST(DocsExample, EightGpus) {
  expect_lines(8, "NCCL", {{"nccl.tuner_plugin", S::gated, "", kNoPluginV4},
                           {"nccl.example_plugin", S::gated, "", "from 2.30.3"}});
  expect_lines(8, "vLLM", {{"vllm.custom_ar", S::gated, "", ""},
                           {"vllm.nccl_symm", S::try_it, "VLLM_USE_NCCL_SYMM_MEM=1 NCCL_CUMEM_ENABLE=1",
                            "slower at 0 of 5 sizes measured at or above 1 MiB"},
                           {"vllm.torch_symm", S::gated, "", ""},
                           {"vllm.fusion", S::try_it, kFusion011, ""},
                           {"vllm.fi_pcie_ipc", S::gated, "", kNoIpc}});
  expect_lines(8, "SGLang", {{"sglang.custom_ar", S::gated, "", ""},
                             {"sglang.fusion", S::gated, "", ""},
                             {"sglang.torch_symm", S::gated, "", ""},
                             {"sglang.nccl_symm", S::keep, "", "faster than on plain buffers at 5 and slower at 10 of 15 sizes"},
                             {"sglang.pcie_ipc", S::gated, "", kPcieIpcPr}});
  expect_lines(8, "TensorRT-LLM", {{"trtllm.strategy", S::keep, "", "faster than plain NCCL at 5 and slower at 10 of 15 sizes"},
                                   {"trtllm.lowprecision", S::gated, "", kLowPrec}});
  expect_lines(8, "FlashInfer", {{"flashinfer.use_oneshot", S::try_it, "use_oneshot=(token_num <= 8)",
                                  "switches after 168 tokens"}});
}

TEST(DocsExample, NoCommandCarriesWhatTheGivenVersionsCannotTake) {
  for (int w : {2, 4, 8}) {
    for (const EngineSection& e : example().world(w).engines) {
      EXPECT_TRUE(e.engine == "NCCL" || e.engine == "FlashInfer" || !e.command.empty()) << e.engine;
      for (const std::string& line : e.command) {
        EXPECT_FALSE(contains(line, "NCCL_TUNER_PLUGIN")) << "NCCL 2.27.7 cannot load the plugin: " << line;
        EXPECT_FALSE(contains(line, "fuse_allreduce_rms")) << "vLLM 0.11.0's key is enable_fi_allreduce_fusion: " << line;
        EXPECT_FALSE(contains(line, "PCIE_IPC")) << line;
        EXPECT_FALSE(contains(line, "--config ")) << line;
      }
    }
    // Each line names the versions it was judged for: vLLM's and NCCL's as given.
    for (const char* id : {"vllm.custom_ar", "vllm.fusion", "vllm.nccl_symm"})
      EXPECT_TRUE(contains(example().setting(w, id)->versions, "vLLM 0.11.0 (given)")) << id;
    EXPECT_TRUE(contains(example().setting(w, "nccl.tuner_plugin")->versions, "NCCL 2.27.7 (given)"));
  }
  EXPECT_EQ(example().engine(8, "vLLM").command, (std::vector<std::string>{"vllm serve MODEL --tensor-parallel-size 8"}));
}

}  // namespace
}  // namespace arbench
