// The links file: round trip through JSON and a file, the slowest link of a ring and of all
// pairs, and clear errors for files that cannot be used.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "arbench/core/errors.hpp"
#include "topo/links.hpp"

namespace arbench::topo {
namespace {

// 4 devices; 0-1 and 2-3 share a switch (fast), crossing is slower, 3->0 slowest of all.
Links sample() {
  Links l;
  l.bus_ids = {"0000:03:00.0", "0000:04:00.0", "0000:83:00.0", "0000:84:00.0"};
  LinkMatrix m{"cudaMemcpyPeerAsync", "GB/s", 64u << 20, 20, {}, std::nullopt, {}};
  m.values = {{std::nullopt, 50.0, 30.0, 30.0},
              {50.0, std::nullopt, 30.0, 30.0},
              {30.0, 30.0, std::nullopt, 50.0},
              {20.0, 30.0, 50.0, std::nullopt}};
  l.matrices[std::string(kCeUnidir)] = m;
  LinkMatrix skipped{"SM stores", "GB/s", 0, 0, {}, std::string("no P2P access between any pair"), {}};
  l.matrices[std::string(kPushUnidir)] = skipped;
  return l;
}

TEST(TopoLinks, SlowestLinkOfARing) {
  Links l = sample();
  std::vector<int> ring{0, 1, 2, 3};  // uses 0->1 50, 1->2 30, 2->3 50, 3->0 20
  EXPECT_EQ(slowest_link_gbps(l, ring, LinkPattern::kRing), 20.0);
  std::vector<int> reversed{0, 3, 2, 1};  // 0->3 30, 3->2 50, 2->1 30, 1->0 50
  EXPECT_EQ(slowest_link_gbps(l, reversed, LinkPattern::kRing), 30.0);
  std::vector<int> pair{0, 1};
  EXPECT_EQ(slowest_link_gbps(l, pair, LinkPattern::kRing), 50.0);
}

TEST(TopoLinks, SlowestLinkOfAllPairs) {
  Links l = sample();
  std::vector<int> all{0, 1, 2, 3};
  EXPECT_EQ(slowest_link_gbps(l, all, LinkPattern::kAllPairs), 20.0);
  std::vector<int> upper{1, 2, 3};
  EXPECT_EQ(slowest_link_gbps(l, upper, LinkPattern::kAllPairs), 30.0);
}

TEST(TopoLinks, UnusableRequestsSayWhy) {
  Links l = sample();
  std::string why;
  std::vector<int> one{0};
  EXPECT_FALSE(slowest_link_gbps(l, one, LinkPattern::kRing, kCeUnidir, &why));
  EXPECT_NE(why.find("fewer than 2"), std::string::npos);
  std::vector<int> out{0, 7};
  EXPECT_FALSE(slowest_link_gbps(l, out, LinkPattern::kRing, kCeUnidir, &why));
  EXPECT_NE(why.find("device 7"), std::string::npos) << why;
  std::vector<int> self{0, 0};
  EXPECT_FALSE(slowest_link_gbps(l, self, LinkPattern::kRing, kCeUnidir, &why));
  EXPECT_NE(why.find("0->0 was not measured"), std::string::npos) << why;
  std::vector<int> ok{0, 1};
  EXPECT_FALSE(slowest_link_gbps(l, ok, LinkPattern::kRing, kPullBidir, &why));
  EXPECT_NE(why.find("no matrix 'pull_bidir_gbps'"), std::string::npos) << why;
  EXPECT_FALSE(slowest_link_gbps(l, ok, LinkPattern::kRing, kPushUnidir, &why));
  EXPECT_NE(why.find("skipped: no P2P access"), std::string::npos) << why;
}

TEST(TopoLinks, Efficiency) {
  EXPECT_DOUBLE_EQ(*link_efficiency(40.0, 50.0), 0.8);
  EXPECT_FALSE(link_efficiency(40.0, std::nullopt));
  EXPECT_FALSE(link_efficiency(40.0, 0.0));
}

TEST(TopoLinks, JsonRoundTripAlsoInsideATopoFile) {
  Links l = sample();
  nlohmann::json j = links_to_json(l);
  EXPECT_EQ(j["schema"], kLinksSchema);
  EXPECT_TRUE(j["matrices"][std::string(kCeUnidir)]["values"][0][0].is_null());
  Links back = links_from_json(j);
  EXPECT_EQ(back.bus_ids, l.bus_ids);
  EXPECT_EQ(back.matrices.at(std::string(kCeUnidir)).values, l.matrices.at(std::string(kCeUnidir)).values);
  EXPECT_EQ(back.matrices.at(std::string(kCeUnidir)).bytes, 64u << 20);
  EXPECT_EQ(back.matrices.at(std::string(kPushUnidir)).skipped, "no P2P access between any pair");
  nlohmann::json topo_file{{"topology", nlohmann::json::object()}, {"links", j}};
  EXPECT_EQ(links_from_json(topo_file).bus_ids.size(), 4u);
}

TEST(TopoLinks, ReadFile) {
  std::string path = ::testing::TempDir() + "arbench_links_test.json";
  {
    std::ofstream out(path);
    out << nlohmann::json{{"links", links_to_json(sample())}}.dump(2);
  }
  std::vector<int> ring{0, 1, 2, 3};
  EXPECT_EQ(slowest_link_gbps(read_links_file(path), ring, LinkPattern::kRing), 20.0);
  std::remove(path.c_str());
}

TEST(TopoLinks, BadFilesAreUsageErrors) {
  EXPECT_THROW(read_links_file("/nonexistent/links.json"), UsageError);
  EXPECT_THROW(links_from_json(nlohmann::json{{"schema", "other/1"}}), UsageError);
  nlohmann::json j = links_to_json(sample());
  j["matrices"][std::string(kCeUnidir)]["values"][1] = nlohmann::json::array({1.0});
  EXPECT_THROW(links_from_json(j), UsageError);
  j = links_to_json(sample());
  j["matrices"][std::string(kCeUnidir)]["values"][1][0] = "fast";
  EXPECT_THROW(links_from_json(j), UsageError);
  j = links_to_json(sample());
  j.erase("bus_ids");
  try {
    links_from_json(j, "links file x.json");
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_NE(std::string(e.what()).find("links file x.json"), std::string::npos);
  }
}

TEST(TopoLinks, RenderedMatrixStatesMethodSizeAndRepetitions) {
  Links l = sample();
  l.matrices[std::string(kCeUnidir)].notes = {"0->0: diagonal not measured"};
  std::string text = render_link_matrix(kCeUnidir, l.matrices.at(std::string(kCeUnidir)), {"cuda:0", "cuda:1", "cuda:2", "cuda:3"});
  EXPECT_EQ(text,
            "ce_unidir_gbps: cudaMemcpyPeerAsync; 67108864 bytes x 20 repetitions; GB/s; row = source, column = "
            "destination\n"
            "            cuda:0   cuda:1   cuda:2   cuda:3\n"
            "   cuda:0        -    50.00    30.00    30.00\n"
            "   cuda:1    50.00        -    30.00    30.00\n"
            "   cuda:2    30.00    30.00        -    50.00\n"
            "   cuda:3    20.00    30.00    50.00        -\n"
            "  note: 0->0: diagonal not measured\n");
  std::string skipped = render_link_matrix(kPushUnidir, l.matrices.at(std::string(kPushUnidir)), {});
  EXPECT_NE(skipped.find("  skipped: no P2P access between any pair\n"), std::string::npos) << skipped;
}

TEST(TopoLinks, RanksMapToLinkIndicesByBusId) {
  Links l = sample();
  // A run that sees only two of the four GPUs, in another order, with NVML-style bus ids.
  auto idx = link_indices_for_bus_ids(l, {"00000000:84:00.0", "0000:04:00.0", "0000:99:00.0"});
  EXPECT_EQ(idx, (std::vector<int>{3, 1, -1}));
  std::vector<int> ring{3, 1};
  EXPECT_EQ(slowest_link_gbps(l, ring, LinkPattern::kRing), 30.0);
  std::string why;
  EXPECT_FALSE(slowest_link_gbps(l, idx, LinkPattern::kRing, kCeUnidir, &why));
  EXPECT_NE(why.find("device -1 is not in the links file"), std::string::npos) << why;
}

TEST(TopoLinks, SlowestLinkForBusIds) {
  Links l = sample();
  std::string why;
  EXPECT_EQ(slowest_link_for_bus_ids(l, {"0000:03:00.0", "0000:04:00.0"}, LinkPattern::kRing), 50.0);
  EXPECT_EQ(slowest_link_for_bus_ids(l, {"0000:84:00.0", "0000:03:00.0", "0000:04:00.0"}, LinkPattern::kAllPairs),
            20.0);
  EXPECT_FALSE(slowest_link_for_bus_ids(l, {"0000:03:00.0", "0000:99:00.0"}, LinkPattern::kRing, kCeUnidir, &why));
  EXPECT_NE(why.find("0000:99:00.0 is not in the links file"), std::string::npos) << why;
  l.matrices[std::string(kCeUnidir)].values[0][0] = 900.0;  // virtual ranks on one GPU: the diagonal
  EXPECT_EQ(slowest_link_for_bus_ids(l, {"0000:03:00.0", "0000:03:00.0"}, LinkPattern::kRing), 900.0);
}

TEST(TopoLinks, PatternOfEachVariant) {
  for (const char* v : {"ring", "nccl", "nccl-symm", "unfused-nccl", "nccl[ring/ll]"})
    EXPECT_EQ(link_pattern_for_variant(v), LinkPattern::kRing) << v;
  for (const char* v : {"oneshot-pull", "oneshot-push", "twoshot", "unfused-oneshot", "fused-oneshot", "fused-twoshot"})
    EXPECT_EQ(link_pattern_for_variant(v), LinkPattern::kAllPairs) << v;
}

}  // namespace
}  // namespace arbench::topo
