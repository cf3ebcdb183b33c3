// The NCCL-side settings (arbench's tuner table) hold only for the NCCL they were measured with:
// given the NCCL the user's engine loads (--nccl / --python), another major.minor makes the table
// `try` with the reason, and no engine command carries it; the same minor (any patch) keeps `set`.
// On the committed fixture, measured with NCCL 2.28.9.
#include <gtest/gtest.h>

#include "settings/nccl_plan.hpp"
#include "tests/host/settings/settings_fixture.hpp"

namespace arbench::testing {
namespace {

StackVersions with_nccl(const std::string& v, const std::string& source = "--engine/--nccl") {
  StackVersions s;
  s.nccl = parse_version(v);
  s.source = source;
  return s;
}

bool any_command_loads_the_plugin(const FixtureSettings& f, int world) {
  for (const EngineSection& e : f.world(world).engines)
    for (const std::string& line : e.command)
      if (line.find("NCCL_TUNER_PLUGIN=") != std::string::npos) return true;
  return false;
}

TEST(NcclVersionGate, SameMinorHoldsAnotherMinorOrMajorDoesNot) {
  EXPECT_EQ(nccl_version_gate("2.28.9", StackVersions{}), "");  // no version given: nothing to check
  EXPECT_EQ(nccl_version_gate("2.28.9", with_nccl("2.28.3")), "");
  EXPECT_EQ(nccl_version_gate("2.28.9", with_nccl("2.28")), "");
  const std::string minor = nccl_version_gate("2.28.9", with_nccl("2.27.7"));
  EXPECT_NE(minor.find("measured with NCCL 2.28.9, your engine loads NCCL 2.27.7 (--engine/--nccl): another minor version"),
            std::string::npos)
      << minor;
  EXPECT_NE(minor.find("ARBENCH_NCCL_LIBRARY="), std::string::npos) << minor;
  EXPECT_NE(nccl_version_gate("2.28.9", with_nccl("3.0.1")).find("another major version"), std::string::npos);
  // A result without its NCCL version cannot be shown to hold.
  EXPECT_NE(nccl_version_gate("NCCL could not be loaded", with_nccl("2.28.9")).find("do not record which NCCL"),
            std::string::npos);
}

TEST(NcclVersionGate, TheTableIsSetUnderTheMeasuredMinor) {
  for (const char* v : {"", "2.28.9", "2.28.3"}) {
    SettingsOptions opt = fixed_paths();
    if (*v) opt.stack = with_nccl(v);
    const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"), opt);
    const EngineSetting* s = f.setting(8, "nccl.tuner_plugin");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->status, SettingStatus::set) << v << ": " << s->why;
    EXPECT_TRUE(any_command_loads_the_plugin(f, 8)) << v;
  }
}

TEST(NcclVersionGate, UnderAnotherMinorTheTableIsTryWithTheReasonAndInNoCommand) {
  SettingsOptions opt = fixed_paths();
  opt.stack = with_nccl("2.29.2", "python /opt/venv/bin/python");
  const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"), opt);
  for (int w : {2, 4, 8}) {
    const EngineSetting* s = f.setting(w, "nccl.tuner_plugin");
    ASSERT_NE(s, nullptr) << w;
    if (f.world(w).nccl.rules().empty()) continue;  // nothing to set there anyway
    EXPECT_EQ(s->status, SettingStatus::try_it) << w << ": " << s->why;
    EXPECT_NE(s->why.find("not `set`: measured with NCCL 2.28.9, your engine loads NCCL 2.29.2 (python /opt/venv/bin/python)"),
              std::string::npos)
        << s->why;
    EXPECT_NE(s->paste.find("ARBENCH_NCCL_TUNER_TABLE=/settings/arbench-nccl-tuner.table"), std::string::npos) << s->paste;
    EXPECT_FALSE(any_command_loads_the_plugin(f, w)) << w;
  }
  // The table file is still written: `try` means the user may load it (the plugin warns once).
  EXPECT_FALSE(f.report.table_text.empty());
}

}  // namespace
}  // namespace arbench::testing
