// `arbench settings` never chooses what did not run as named (run/nccl_case_labels.hpp): a
// `ch:N` case NCCL clamped to fewer channels, and `nccl-symm` without NCCL's symmetric kernels
// (NCCL 2.29.2+ off NVLink), labelled by the run or known from an older result's provenance.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>

#include "settings_fixture.hpp"

namespace arbench {
namespace {

using testing::fixture_path;
using testing::settings_of;

// The crossover fixture, edited by `edit`, written to a file of its own.
std::string edited_fixture(const std::string& tag, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = nlohmann::json::parse(testing::read_text(fixture_path("pcie8-crossovers.json")));
  edit(doc);
  const auto path = std::filesystem::temp_directory_path() /
                    ("arbench-settings-" + tag + "-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << doc.dump();
  return path.string();
}

bool picks_channels(const testing::FixtureSettings& f, int world, int channels) {
  for (const NcclRange& r : f.world(world).nccl.ranges)
    if (r.channels == channels) return true;
  for (const NcclRange& r : f.world(world).nccl.example)
    if (r.channels == channels) return true;
  return false;
}

TEST(SettingsNcclLabels, AClampedChannelCountIsNeverChosen) {
  const auto plain = settings_of(fixture_path("pcie8-crossovers.json"));
  ASSERT_TRUE(picks_channels(plain, 8, 8)) << "the fixture's 8-GPU plan uses ch:8; else this test proves nothing";
  const std::string path = edited_fixture("clamped", [](nlohmann::json& doc) {
    for (auto& c : doc["arbench"]["cases"])
      if (c["name"].get<std::string>().find("/ch:8]") != std::string::npos)
        c["settings"] = {{"nccl_channels_run", "4"},
                         {"nccl_channels_clamped", "asked for 8 channels; the communicator has 4, and NCCL runs at most that many"}};
  });
  const auto f = settings_of(path);
  for (int w : {2, 4, 8}) EXPECT_FALSE(picks_channels(f, w, 8)) << "gpus " << w << ": a count that never ran";
  bool said = false;
  for (const std::string& why : f.measured->ignored) said = said || why.find("clamped") != std::string::npos;
  EXPECT_TRUE(said) << "the left-out cases are counted, with the reason";
  std::filesystem::remove(path);
}

// Which evidence `findings` weighed for NCCL's symmetric memory at a world size.
std::size_t symm_evidence(const testing::FixtureSettings& f, int world) { return f.world(world).findings.nccl_symm.evidence.size(); }

TEST(SettingsNcclLabels, NcclSymmWithoutItsKernelsIsLeftOut) {
  const auto plain = settings_of(fixture_path("pcie8-crossovers.json"));
  ASSERT_GT(symm_evidence(plain, 8), 0u) << "the fixture measures nccl-symm at 8 GPUs";
  // An older result: no label, but its provenance says NCCL 2.29.2 on a PCIe box.
  const std::string newer = edited_fixture("nccl2292", [](nlohmann::json& doc) {
    doc["arbench"]["provenance"]["nccl_version"] = "2.29.2";
  });
  const auto f = settings_of(newer);
  for (int w : {2, 4, 8}) EXPECT_EQ(symm_evidence(f, w), 0u) << "gpus " << w;
  // A labelled case is left out whatever the provenance says.
  const std::string labelled = edited_fixture("symmoff", [](nlohmann::json& doc) {
    for (auto& c : doc["arbench"]["cases"])
      if (c["name"].get<std::string>().find("/nccl-symm/") != std::string::npos)
        c["settings"] = {{"nccl_symm_kernels", "off: NCCL 2.29.2 runs its symmetric kernels only when ..."}};
  });
  const auto g = settings_of(labelled);
  for (int w : {2, 4, 8}) EXPECT_EQ(symm_evidence(g, w), 0u) << "gpus " << w;
  std::filesystem::remove(newer);
  std::filesystem::remove(labelled);
}

}  // namespace
}  // namespace arbench
