// `arbench settings` says where NCCL's best is already within 10% of the speed-of-light floor
// ("nothing to win here", settings/findings.hpp SolHeadroom): a fixture result given floors by hand,
// one size where NCCL sits on the floor, others far above it; results without floors say nothing.
#include <gtest/gtest.h>

#include "tests/host/results/synthetic_result.hpp"
#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

// no-fused.json with floors on its 8-GPU cases: at 1 KiB the lowest floor sits 5% under NCCL's best
// median; at every other size at half of it.
std::string with_floors() {
  nlohmann::json j = nlohmann::json::parse(testing::read_text(testing::fixture_path("no-fused.json")));
  std::map<std::string, double> nccl_best;  // size -> NCCL's fastest median
  for (const auto& c : j["arbench"]["cases"]) {
    const std::string name = c["name"];
    if (name.find("gpus:8/") == std::string::npos || name.rfind("allreduce/nccl", 0) != 0) continue;
    const std::string size = name.substr(name.rfind("bytes:"));
    const double m = c["median_us"];
    if (!nccl_best.count(size) || m < nccl_best[size]) nccl_best[size] = m;
  }
  for (auto& c : j["arbench"]["cases"]) {
    const std::string name = c["name"];
    if (name.find("gpus:8/") == std::string::npos || name.find("/oneshot-push/") == std::string::npos) continue;
    const std::string size = name.substr(name.rfind("bytes:"));
    c["sol_us"] = nccl_best.at(size) * (size == "bytes:1024" ? 1 / 1.05 : 0.5);
  }
  return testing::write_temp(j.dump(), "sol-floors");
}

TEST(SettingsSol, NothingToWinWhereNcclIsWithinTenPercentOfTheFloor) {
  const auto m = load_measured({with_floors()}, "bf16", std::nullopt);
  const SettingsReport rep = make_settings(*m, testing::fixed_paths());
  const WorldSettings* w8 = nullptr;
  for (const auto& w : rep.worlds)
    if (w.world == 8) w8 = &w;
  ASSERT_NE(w8, nullptr);
  const auto& h = w8->findings.headroom;
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h.front().size, 1024u);
  EXPECT_TRUE(h.front().nothing_to_win());
  EXPECT_EQ(h.front().floor_variant, "oneshot-push");
  for (std::size_t i = 1; i < h.size(); ++i) EXPECT_FALSE(h[i].nothing_to_win()) << h[i].size;
  const std::string text = format_settings(rep);
  EXPECT_NE(text.find("floor: nothing to win here at 1K: NCCL's best is within 10% of the speed-of-light floor"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("NCCL's best is 2.00x the lowest floor at 2K"), std::string::npos) << text;
  const nlohmann::json j = settings_json(rep);
  bool found = false;
  for (const auto& w : j["worlds"])
    if (w["world"] == 8) {
      found = true;
      EXPECT_TRUE(w["speed_of_light"][0]["nothing_to_win"].get<bool>());
    } else {
      EXPECT_FALSE(w.contains("speed_of_light"));  // no floors at 4 GPUs
    }
  EXPECT_TRUE(found);
}

TEST(SettingsSol, ResultsWithoutFloorsSayNothingOfThem) {
  const auto m = load_measured({testing::fixture_path("no-fused.json")}, "bf16", std::nullopt);
  const SettingsReport rep = make_settings(*m, testing::fixed_paths());
  for (const auto& w : rep.worlds) EXPECT_TRUE(w.findings.headroom.empty());
  EXPECT_EQ(format_settings(rep).find("speed-of-light"), std::string::npos);
}

}  // namespace
}  // namespace arbench
