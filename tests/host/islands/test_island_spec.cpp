// `--islands` as typed (bench/islands/island_spec.hpp): accepted forms, every rejected one with
// its message, and the per-world islands a run derives from it (sweep/run_config.hpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "arbench/algo/island/island_map.hpp"
#include "arbench/core/errors.hpp"
#include "islands/island_spec.hpp"
#include "sweep/run_config.hpp"

namespace arbench::islands {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_islands(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(IslandSpec, AcceptedForms) {
  EXPECT_EQ(parse_islands("0-3,4-7"), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(parse_islands("0-2,3-7"), (std::vector<int>{0, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(parse_islands("0+2,1+3"), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(parse_islands("4-7,0-3"), (std::vector<int>{1, 1, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(parse_islands("0,1"), (std::vector<int>{0, 1}));
  EXPECT_EQ(algo::islands_text(parse_islands("4-7,0-3")), "0-3,4-7");  // as recorded: lowest rank first
}

TEST(IslandSpec, RejectedWithTheReason) {
  const std::pair<const char*, const char*> bad[] = {
      {"", "no islands given"},
      {"0-3,3-7", "rank 3 is listed twice"},
      {"0-3,5-7", "rank 4 is missing"},
      {"0-3,,4-7", "an empty island"},
      {"0-3,4-7,", "an empty island"},
      {"0-3+,4-7", "an empty run"},
      {"3-0,4-7", "goes down"},
      {"0-3,4-x", "'x' is not a rank"},
      {"0-3,4-9", "rank 9 is out of range"},
      {"-1", "'' is not a rank"},
      {"0-3;4-7", "is not a rank"},
  };
  for (const auto& [text, why] : bad) {
    const std::string e = error_of(text);
    EXPECT_NE(e.find(why), std::string::npos) << text << ": " << e;
    if (!e.empty()) {
      EXPECT_NE(e.find("e.g. --islands 0-3,4-7"), std::string::npos) << e;
    }
  }
}

TEST(IslandSpec, RunResolvesEveryWorldSize) {
  RunConfig cfg;
  cfg.gpus = {2, 4, 8};
  cfg.islands = "0-2,3-7";
  resolve_islands(cfg, Backend::host);
  EXPECT_EQ(cfg.islands_source, "--islands");
  EXPECT_EQ(cfg.tuning.islands.at(8), (std::vector<int>{0, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(cfg.tuning.islands.at(4), (std::vector<int>{0, 0, 0, 1}));
  EXPECT_EQ(cfg.tuning.islands.at(2), (std::vector<int>{0, 0}));  // one island: skipped, with the reason
  // Recorded as typed in the JSON config, and part of the sweep key.
  EXPECT_EQ(config_to_json(cfg).at("islands"), "0-2,3-7");
  RunConfig other = cfg;
  other.islands = "0-3,4-7";
  EXPECT_NE(sweep_key(cfg), sweep_key(other));

  cfg.islands = "0-3";
  try {
    resolve_islands(cfg, Backend::host);
    FAIL() << "--islands 0-3 with --gpus 8 accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("covers ranks 0-3 but --gpus runs 8 ranks"), std::string::npos) << e.what();
  }
}

TEST(IslandSpec, DefaultsByBackend) {
  RunConfig cfg;
  cfg.gpus = {1, 2, 6};
  resolve_islands(cfg, Backend::host);
  EXPECT_EQ(cfg.tuning.islands.at(6), (std::vector<int>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(cfg.tuning.islands.at(2), (std::vector<int>{0, 1}));
  EXPECT_NE(cfg.islands_source.find("two halves"), std::string::npos);
  resolve_islands(cfg, Backend::cuda);
  EXPECT_TRUE(cfg.tuning.islands.empty());  // the run derives them from the PCIe tree
  EXPECT_EQ(cfg.islands_source, "the PCIe tree");
}

}  // namespace
}  // namespace arbench::islands
