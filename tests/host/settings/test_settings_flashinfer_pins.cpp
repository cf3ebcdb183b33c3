// Issue 58, item 1: without --engine flashinfer=VER, FlashInfer's use_oneshot line and vLLM's and
// SGLang's fusion lines on 12.x are judged on the FlashInfer the given engine release pins — from a
// pin read at that release's tag only (bench/settings/catalogue/flashinfer_pins.cpp). No pin could be
// read at a tag here yet, so the gate itself is tested on a table made up for the test (engine
// releases 7.x, which do not exist), and the catalogue's own rows on what the lines print for them.
#include <gtest/gtest.h>

#include "settings/catalogue/flashinfer_pins.hpp"
#include "settings/engines.hpp"
#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

using namespace testing;
using engine_detail::FiBuild;
using engine_detail::GpuFacts;
using engine_detail::fi_build_for;

StackVersions stack_of(const std::string& engine, const std::string& version) {
  StackVersions s;
  s.engines[engine] = *parse_release(version);
  return s;
}

// A made-up table: vLLM 7.1.0 pins a FlashInfer before 0.6.17, 7.2.0 one from it, 7.3.0 was read
// only at a commit.
const std::vector<FlashInferPin> kTestPins = {
    {"vllm", "7.1.0", "0.6.16.post3", "vllm-project/vllm", "v7.1.0", "requirements/cuda.txt", true},
    {"vllm", "7.2.0", "0.6.17", "vllm-project/vllm", "v7.2.0", "requirements/cuda.txt", true},
    {"vllm", "7.3.0", "0.6.16", "vllm-project/vllm", "commit 123456789abc", "requirements/cuda.txt", false},
    {"sglang", "7.1.0", "0.6.16", "sgl-project/sglang", "v7.1.0", "python/pyproject.toml", true},
};
const GpuFacts kSm120{"RTX PRO 6000", "12.0"}, kSm100{"B200", "10.0"};

// A release whose pin (read at its tag) is before 0.6.17: on 12.x the fusion cannot build, and the
// line names the pin and where it was read.
TEST(ReleaseLines, PinnedFlashInferBefore0617CannotBuildOn12) {
  const FiBuild b = fi_build_for(kSm120, stack_of("vllm", "7.1.0"), "vllm", kTestPins);
  EXPECT_FALSE(b.builds) << b.why;
  EXPECT_NE(b.why.find("FlashInfer 0.6.16.post3 (pinned by vLLM 7.1.0: vllm-project/vllm v7.1.0, "
                       "requirements/cuda.txt) builds its fused all-reduce (trtllm_comm) for SM 9.x, 10.x only"),
            std::string::npos) << b.why;
  EXPECT_NE(b.why.find("FlashInfer 0.6.17 and later build it for capability 12.0"), std::string::npos) << b.why;
  // SGLang's line reads SGLang's pin; FlashInfer's own line the pin of the engine given.
  EXPECT_FALSE(fi_build_for(kSm120, stack_of("sglang", "7.1.0"), "sglang", kTestPins).builds);
  EXPECT_FALSE(fi_build_for(kSm120, stack_of("sglang", "7.1.0"), "", kTestPins).builds);
  // On 10.0 the same pin builds; a FlashInfer given outranks the pin.
  EXPECT_TRUE(fi_build_for(kSm100, stack_of("vllm", "7.1.0"), "vllm", kTestPins).builds);
  StackVersions given = stack_of("vllm", "7.1.0");
  given.engines["flashinfer"] = *parse_release("0.6.17");
  const FiBuild g = fi_build_for(kSm120, given, "vllm", kTestPins);
  EXPECT_TRUE(g.builds && g.known) << g.why;
}

// A release whose pin is 0.6.17 or later: the line is judged as usual, with nothing to ask.
TEST(ReleaseLines, PinnedFlashInferFrom0617BuildsOn12) {
  const FiBuild b = fi_build_for(kSm120, stack_of("vllm", "7.2.0"), "vllm", kTestPins);
  EXPECT_TRUE(b.builds);
  EXPECT_TRUE(b.known) << b.why;
  EXPECT_EQ(b.why, "");
}

// A pin not read at the release's tag decides nothing: the line names what was read and asks.
TEST(ReleaseLines, PinNotReadAtTheTagAsksForFlashInfer) {
  const FiBuild commit = fi_build_for(kSm120, stack_of("vllm", "7.3.0"), "vllm", kTestPins);
  EXPECT_TRUE(commit.builds);
  EXPECT_FALSE(commit.known);
  EXPECT_NE(commit.why.find("(vLLM 7.3.0's pin, FlashInfer 0.6.16, was read at vllm-project/vllm commit "
                            "123456789abc, requirements/cuda.txt, not at the release's tag): give --engine "
                            "flashinfer=VERSION"),
            std::string::npos) << commit.why;
  // Another engine's pin is not this engine's: vLLM's line with only SGLang's pin known asks.
  EXPECT_FALSE(fi_build_for(kSm120, stack_of("sglang", "7.1.0"), "vllm", kTestPins).known);
  // The catalogue's own table, through the whole settings run: vLLM 0.18.2's pin was not read.
  const EngineSetting* v = pcie8({{"vllm", "0.18.2"}}).setting(2, "vllm.fusion");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->status, SettingStatus::try_it) << v->why;
  EXPECT_NE(v->why.find("(vLLM 0.18.2's FlashInfer pin was not read at its tag): give --engine "
                        "flashinfer=VERSION"), std::string::npos) << v->why;
  // SGLang 0.5.1.post3: its pyproject read at a commit whose version field names that release.
  const EngineSetting* s = pcie8({{"sglang", "0.5.1.post3"}}).setting(2, "flashinfer.use_oneshot");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->status, SettingStatus::gated) << s->why;
  EXPECT_NE(s->why.find("SGLang 0.5.1.post3's pin, FlashInfer 0.3.0rc1, was read at sgl-project/sglang commit "
                        "0001da81f774"),
            std::string::npos) << s->why;
}

// Every row of the catalogue's table names where it was read; one read at a tag names the tag.
TEST(ReleaseLines, EveryFlashInferPinNamesItsSource) {
  for (const FlashInferPin& p : flashinfer_pins()) {
    EXPECT_TRUE(p.package == "vllm" || p.package == "sglang") << p.package;
    EXPECT_TRUE(parse_release(std::string(p.release))) << p.release;
    EXPECT_TRUE(parse_release(std::string(p.flashinfer))) << p.flashinfer;
    EXPECT_FALSE(p.repo.empty() || p.ref.empty() || p.path.empty()) << p.release;
    if (p.at_release) {
      EXPECT_EQ(p.ref, "v" + std::string(p.release)) << "a row read at a tag names that tag";
    }
  }
  EXPECT_NE(flashinfer_pin("sglang", *parse_release("0.5.1.post3+cu128")), nullptr);
  EXPECT_EQ(flashinfer_pin("sglang", *parse_release("0.5.1")), nullptr);  // another release
}

}  // namespace
}  // namespace arbench
