// The knob catalogue (bench/settings/catalogue/knobs.hpp): every entry names its source and release range,
// the entries of one knob do not overlap, the entry chosen for given versions, and
// docs/engine-settings.md's knob table is the one generated from the catalogue
// (ARBENCH_UPDATE_GOLDEN=1 rewrites it, for a deliberate change: review the diff).
#include <gtest/gtest.h>

#include <set>

#include "settings/catalogue/knobs.hpp"
#include "tests/host/settings/settings_fixture.hpp"
#include "tests/host/text_checks.hpp"

namespace arbench {
namespace {

constexpr const char* kBegin = "<!-- knob-table: generated from bench/settings/catalogue/knobs.cpp; do not edit -->\n";
constexpr const char* kEnd = "<!-- knob-table end -->";

StackVersions with(const std::string& pkg, const std::string& v) {
  StackVersions s;
  if (pkg == "nccl")
    s.nccl = parse_version(v);
  else
    s.engines[pkg] = *parse_version(v);
  s.source = "test";
  return s;
}

TEST(KnobCatalogue, EveryEntryNamesItsSourceAndReleases) {
  const std::set<std::string_view> packages = {"vllm", "sglang", "tensorrt_llm", "flashinfer", "nccl"};
  for (std::size_t i = 0; i < knobs().size(); ++i) {
    const Knob& k = knobs()[i];
    EXPECT_FALSE(k.source.repo.empty() || k.source.ref.empty() || k.source.files.empty()) << k.id;
    EXPECT_TRUE(k.verified || !k.caveat.empty()) << k.id << ": an unverified entry must say what is not verified";
    EXPECT_TRUE(packages.count(k.package)) << k.id << ": " << k.package;
    EXPECT_FALSE(k.name.empty() || k.values.empty() || k.conditions.empty() || k.what.empty()) << k.id;
    for (std::string_view r : {k.first, k.last, k.absent_through})
      EXPECT_TRUE(r.empty() || parse_version(std::string(r))) << k.id << ": release " << r;
    if (i > 0 && knobs()[i - 1].id == k.id) {  // the next version range of the same knob
      const Knob& prev = knobs()[i - 1];
      ASSERT_FALSE(prev.last.empty()) << k.id << ": an open range before another";
      EXPECT_LT(*parse_version(std::string(prev.last)), *parse_version(std::string(k.first))) << k.id;
    }
  }
  // Every id's entries are adjacent (knob_for and the docs rely on it).
  std::set<std::string_view> done;
  for (std::size_t i = 0; i < knobs().size(); ++i)
    if (i == 0 || knobs()[i - 1].id != knobs()[i].id) {
      EXPECT_TRUE(done.insert(knobs()[i].id).second) << knobs()[i].id;
    }
  EXPECT_FALSE(done.count("vllm.custom_ar_algo")) << "VLLM_CUSTOM_ALLREDUCE_ALGO exists only in forks";
}

// Every entry names a release it holds for (a range, or a release tag or versioned docs read), or
// says "not in a release we could find"; an entry read only at a pull request or commit prints it.
TEST(KnobCatalogue, EveryEntryNamesAReleaseOrSaysItHasNone) {
  for (const Knob& k : knobs()) {
    EXPECT_TRUE(has_release(k) || says_not_in_release(k))
        << k.id << " (" << k.source.ref << "): neither a release nor \"" << kNotInRelease << "\"";
    if (k.source.release.empty() && k.first.empty() && k.last.empty()) {
      const std::string versions = knob_for(k.id, {}, std::nullopt).versions;
      if (&knob(k.id) == &k) {
        EXPECT_NE(versions.find(kNotInRelease), std::string::npos) << k.id << ": " << versions;
      }
    }
  }
  // The check itself: an entry read at a PR only, without the mark, fails it; with a release, passes.
  Knob bare{.id = "x.y", .source = {"o/r", "PR #1", "f.py"}};
  EXPECT_FALSE(has_release(bare) || says_not_in_release(bare));
  bare.caveat = "read at a pull request: not in a release we could find";
  EXPECT_TRUE(says_not_in_release(bare));
  Knob released{.id = "x.z", .first = "1.2.0"};
  EXPECT_TRUE(has_release(released));
  released = Knob{.id = "x.w", .source = {"o/r", "v1.0", "f.py", "v1.0"}};
  EXPECT_TRUE(has_release(released));
}

TEST(KnobCatalogue, TheDocsTableIsGeneratedFromTheCatalogue) {
  test::expect_generated_section("docs/engine-settings.md", kBegin, kEnd, knob_table_markdown());
}

TEST(KnobCatalogue, TheEntryFollowsTheGivenRelease) {
  // vLLM's NCCL symmetric-memory size rule: before and after PR #33839.
  const KnobFor old_rule = knob_for("vllm.nccl_symm", with("vllm", "0.16.0"), std::nullopt);
  ASSERT_FALSE(old_rule.lacks);
  EXPECT_EQ(old_rule.entry->sizes.front().large_min, 2u << 20);
  EXPECT_EQ(old_rule.entry->sizes.front().small_max, 0u);
  EXPECT_EQ(old_rule.versions, "for vLLM 0.16.0 (given): holds for 0.11.0 to 0.16.0 (read at index commit "
                               "b250ac3dd5ef; docs.vllm.ai v0.11.0 (pynccl_allocator))");
  const KnobFor new_rule = knob_for("vllm.nccl_symm", with("vllm", "0.17.0"), std::nullopt);
  EXPECT_EQ(new_rule.entry->sizes.front().small_max, 16u << 10);
  EXPECT_EQ(new_rule.entry->sizes.back().large_min, 128u << 10);
  // Older than the first release: the knob is absent.
  const KnobFor absent = knob_for("vllm.nccl_symm", with("vllm", "0.10.1"), std::nullopt);
  EXPECT_TRUE(absent.lacks);
  EXPECT_EQ(absent.versions, "vLLM 0.10.1 (given): VLLM_USE_NCCL_SYMM_MEM first appears in 0.11.0");
  // Newer than every release read: the newest entry, said so.
  const KnobFor newer = knob_for("vllm.nccl_symm", with("vllm", "0.33.0"), std::nullopt);
  EXPECT_EQ(newer.entry, new_rule.entry);
  // No version: the newest entry, and the line says what it was checked against.
  const KnobFor none = knob_for("vllm.nccl_symm", {}, std::nullopt);
  EXPECT_EQ(none.entry, new_rule.entry);
  EXPECT_FALSE(none.given);
  EXPECT_EQ(none.versions.rfind("checked against vLLM 0.17.0 and later", 0), 0u) << none.versions;
  // NCCL's symmetric kernels: NVLink-only from 2.29.2; the measurement's NCCL when none is given.
  EXPECT_FALSE(knob_for("nccl.symm_kernels", with("nccl", "2.28.9"), std::nullopt).entry->needs_nvlink);
  EXPECT_TRUE(knob_for("nccl.symm_kernels", with("nccl", "2.29.2"), std::nullopt).entry->needs_nvlink);
  EXPECT_TRUE(knob_for("nccl.symm_kernels", with("nccl", "2.30.7"), std::nullopt).entry->needs_nvlink);
  const KnobFor measured = knob_for("nccl.symm_kernels", {}, parse_version("2.28.9"));
  EXPECT_FALSE(measured.entry->needs_nvlink);
  EXPECT_NE(measured.versions.find("NCCL 2.28.9 (the measurement's; give --nccl for your engine's)"), std::string::npos)
      << measured.versions;
}

}  // namespace
}  // namespace arbench
