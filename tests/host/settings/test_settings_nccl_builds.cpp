// `arbench settings` on NCCL builds measured side by side (settings/findings.hpp, find_nccl_builds; the fixture
// nccl-builds.json: the default NCCL 2.28.9, NCCL 2.29.2 and a rebuild of 2.28.9 named `rebuilt`):
// the verdict on switching NCCL cites both libraries' own cases, and the rest of the settings never
// takes another library's case for the default's.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "arbench/core/errors.hpp"
#include "tests/host/settings/settings_fixture.hpp"
#include "tests/host/thrown.hpp"

namespace arbench::testing {
namespace {

const NcclBuildFinding& build(const FixtureSettings& f, int world, const std::string& label) {
  for (const NcclBuildFinding& b : f.world(world).nccl_builds)
    if (b.label == label) return b;
  throw std::out_of_range("no NCCL build " + label);
}

TEST(SettingsNcclBuilds, EachLibraryBesideTheDefaultIsJudged) {
  const FixtureSettings f = settings_of(fixture_path("nccl-builds.json"));
  ASSERT_EQ(f.world(8).nccl_builds.size(), 2u);
  // 8 GPUs: 2.29.2 faster up to 64 KiB (7 sizes), the same above: worth the upgrade.
  const NcclBuildFinding& up = build(f, 8, "2.29.2");
  EXPECT_EQ(up.verdict, "switch");
  EXPECT_EQ(up.version, "2.29.2");
  EXPECT_EQ(up.default_version, "2.28.9");
  EXPECT_EQ(up.path, "/opt/nccl-2.29.2/lib/libnccl.so.2");
  EXPECT_EQ(up.plain.wins, 7);
  EXPECT_EQ(up.plain.losses, 0);
  EXPECT_EQ(up.plain.lead, 64u * 1024);
  EXPECT_NE(up.summary.find("upgrading to NCCL 2.29.2 is worth it on this machine"), std::string::npos)
      << up.summary;
  // The evidence is the two libraries' own cases.
  ASSERT_FALSE(up.plain.evidence.empty());
  EXPECT_EQ(up.plain.evidence.front().chosen, "nccl@2.29.2");
  EXPECT_EQ(up.plain.evidence.front().other, "nccl");
  EXPECT_TRUE(up.plain.evidence.front().beats);
  // nccl-symm@2.29.2 off NVLink runs without NCCL's symmetric kernels (2.29.2+), by that library's
  // version: left out, so there is no symmetric pair to weigh (the default 2.28.9's nccl-symm stays).
  EXPECT_FALSE(up.symm.measured);
  bool said = false;
  for (const std::string& i : f.report.ignored) said = said || i.find("nccl-symm without NCCL's symmetric kernels") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(up.verify, "arbench compare " + fixture_path("nccl-builds.json") + " --between nccl,nccl@2.29.2");
  // 2 GPUs: faster up to 64 KiB, slower from 1 MiB: it depends on the sizes.
  const NcclBuildFinding& two = build(f, 2, "2.29.2");
  EXPECT_EQ(two.verdict, "mixed");
  EXPECT_EQ(two.plain.wins, 7);
  EXPECT_EQ(two.plain.losses, 5);  // 1 MiB .. 16 MiB
  EXPECT_NE(two.summary.find("faster from the smallest size up to 64 KiB"), std::string::npos) << two.summary;
  // The rebuild of the default's release: nothing to gain.
  const NcclBuildFinding& same = build(f, 8, "rebuilt");
  EXPECT_EQ(same.verdict, "keep");
  EXPECT_EQ(same.plain.wins, 0);
  EXPECT_NE(same.summary.find("switching to nccl@rebuilt gains nothing measurable here: keep the NCCL you have"),
            std::string::npos)
      << same.summary;
}

TEST(SettingsNcclBuilds, TheDefaultsPlanNeverTakesAnotherLibrarysCase) {
  const FixtureSettings f = settings_of(fixture_path("nccl-builds.json"));
  for (int w : {2, 8}) {
    // nccl@2.29.2[ring/ll] runs at half NCCL's time: a configuration of another library is no rule
    // of the default's tuner table.
    for (const NcclRange& r : f.world(w).nccl.ranges) EXPECT_EQ(r.variant.find('@'), std::string::npos) << r.variant;
    // nccl-symm vs nccl stays the default's own pair.
    for (const Evidence& e : f.world(w).findings.nccl_symm.evidence) {
      EXPECT_EQ(e.chosen, "nccl-symm");
      EXPECT_EQ(e.other, "nccl");
    }
  }
}

TEST(SettingsNcclBuilds, TextAndJsonSayIt) {
  const FixtureSettings f = settings_of(fixture_path("nccl-builds.json"));
  const std::string text = format_settings(f.report);
  EXPECT_NE(text.find("NCCL builds measured side by side (arbench run --nccl-lib)"), std::string::npos);
  EXPECT_NE(text.find("  switch  nccl@2.29.2 (/opt/nccl-2.29.2/lib/libnccl.so.2) instead of nccl"), std::string::npos)
      << text;
  EXPECT_NE(text.find("evidence  1 KiB: nccl@2.29.2 "), std::string::npos) << text;
  EXPECT_NE(text.find("nccl,nccl@2.29.2"), std::string::npos) << text;  // the verify line (it may wrap)
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 120u) << line;
  const nlohmann::json j = settings_json(f.report);
  bool seen = false;
  for (const auto& w : j["worlds"])
    if (w["world"] == 8) {
      ASSERT_TRUE(w.contains("nccl_builds"));
      EXPECT_EQ(w["nccl_builds"][0]["variant"], "nccl@2.29.2");
      EXPECT_EQ(w["nccl_builds"][0]["verdict"], "switch");
      EXPECT_EQ(w["nccl_builds"][0]["plain"]["wins"], 7);
      seen = true;
    }
  EXPECT_TRUE(seen);
  // A result without --nccl-lib has no such block.
  const FixtureSettings plain = settings_of(fixture_path("nccl-default-wins.json"));
  EXPECT_EQ(format_settings(plain.report).find("NCCL builds measured side by side"), std::string::npos);
  EXPECT_FALSE(settings_json(plain.report)["worlds"][0].contains("nccl_builds"));
}

// A temp copy of the fixture, edited by `edit`.
std::string edited_fixture(const std::string& stem, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = nlohmann::json::parse(read_text(fixture_path("nccl-builds.json")));
  edit(doc);
  const auto path = std::filesystem::temp_directory_path() / (stem + "_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << doc.dump();
  return path.string();
}

TEST(SettingsNcclBuilds, ALibraryNotMeasuredAtAWorldSizeSaysHowToMeasureIt) {
  const std::string path = edited_fixture("nccl_builds_missing", [](nlohmann::json& doc) {
    auto& cases = doc["arbench"]["cases"];
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& c : cases)
      if (c["name"].get<std::string>().rfind("allreduce/nccl@rebuilt/bf16/gpus:2/", 0) != 0) kept.push_back(c);
    cases = kept;
  });
  const FixtureSettings f = settings_of(path);
  const NcclBuildFinding& b = build(f, 2, "rebuilt");
  EXPECT_EQ(b.verdict, "missing");
  EXPECT_NE(b.verify.find("--variants 'nccl,nccl@rebuilt,nccl-symm,nccl-symm@rebuilt'"), std::string::npos) << b.verify;
  EXPECT_NE(b.verify.find("--nccl-lib rebuilt=/opt/nccl-rebuilt/lib/libnccl.so.2"), std::string::npos) << b.verify;
  EXPECT_NE(format_settings(f.report).find("measure   arbench run --backend cuda --gpus 2"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(SettingsNcclBuilds, OneLabelForTwoLibrariesAcrossFilesIsRefused) {
  const std::string other = edited_fixture("nccl_builds_other", [](nlohmann::json& doc) {
    doc["arbench"]["provenance"]["nccl_libraries"][1]["version"] = "2.29.3";
  });
  const std::string why = test::thrown_message<UsageError>(
      [&] { (void)load_measured({fixture_path("nccl-builds.json"), other}, "bf16", std::nullopt); });
  EXPECT_NE(why.find("its NCCL library nccl@2.29.2 is NCCL 2.29.3"), std::string::npos) << why;
  EXPECT_NE(why.find("one name, two libraries"), std::string::npos) << why;
  std::filesystem::remove(other);
}

// Where NCCL 2.29.2 keeps its symmetric kernels (every GPU pair NVLink-connected), its nccl-symm is
// weighed against the default's too.
TEST(SettingsNcclBuilds, OnNvlinkTheSymmetricPairIsWeighedToo) {
  const std::string path = edited_fixture("nccl_builds_nvlink", [](nlohmann::json& doc) {
    doc["arbench"]["provenance"]["nvlink_all_pairs"]["8"] = true;
  });
  const FixtureSettings f = settings_of(path);
  const NcclBuildFinding& up = build(f, 8, "2.29.2");
  ASSERT_TRUE(up.symm.measured);
  EXPECT_EQ(up.symm.wins, 7);
  EXPECT_EQ(up.symm.losses, 0);
  EXPECT_EQ(up.symm.evidence.front().chosen, "nccl-symm@2.29.2");
  EXPECT_NE(format_settings(f.report).find("symmetric nccl-symm@2.29.2 against nccl-symm: faster at 7 and slower at 0"),
            std::string::npos)
      << format_settings(f.report);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace arbench::testing
