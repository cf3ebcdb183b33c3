// The functional peer-to-peer check end to end on the host backend, with the test switch
// ARBENCH_TEST_BROKEN_P2P planting a broken pair (docs/developing.md): `arbench run` skips the
// world sizes that include the pair with the ACS/IOMMU message, within seconds rather than a
// --timeout per sample, and runs the others; `arbench topo --backend host` shows the pair as
// reported-but-broken. Before the check, the planted pair's cases would each have waited out
// --timeout on every gated sample (the switch did not exist either: the run ignored it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

TEST(CliPeerCheck, ABrokenPairSkipsTheWorldSizesThatNeedItWithinSeconds) {
  const std::string out = testing::TempDir() + "arbench-broken-p2p-" + std::to_string(::getpid()) + ".json";
  const auto t0 = std::chrono::steady_clock::now();
  const CliResult r = run_shell("ARBENCH_TEST_BROKEN_P2P=1,2 " + std::string(ARBENCH_EXE) +
                                " run --backend host --gpus 2,4 --variants oneshot-pull,twoshot,ring -b 1K -e 2K "
                                "--family allreduce --samples 2 --warmup 1 --pipelined-ops 0 --timeout 30 --quiet "
                                "--out " + out);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_LT(took, 25.0) << "one gated sample through the broken pair alone would wait --timeout 30 s\n" << r.output;
  EXPECT_NE(r.output.find("ARBENCH_TEST_BROKEN_P2P=1,2"), std::string::npos) << "the switch announces itself";
  std::ifstream in(out);
  ASSERT_TRUE(in.good()) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(in);
  int ran = 0, skipped = 0;
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["world"], 2) << c["name"];
    EXPECT_EQ(c["status"], "ok") << c["name"] << ": " << c["reason"];
    ++ran;
  }
  for (const auto& s : doc["arbench"]["skipped"]) {
    const std::string reason = s["reason"];
    EXPECT_NE(s["name"].get<std::string>().find("gpus:4"), std::string::npos) << s["name"];
    EXPECT_NE(reason.find("rank 1 -> rank 2"), std::string::npos) << reason;
    EXPECT_NE(reason.find("ACS"), std::string::npos) << reason;
    EXPECT_NE(reason.find("IOMMU"), std::string::npos) << reason;
    ++skipped;
  }
  EXPECT_EQ(ran, 6);      // 3 variants x 2 sizes at 2 ranks
  EXPECT_EQ(skipped, 6);  // the same at 4 ranks
  std::remove(out.c_str());
}

TEST(CliPeerCheck, TopoShowsTheBrokenPairOnTheHostBackend) {
  const std::string out = testing::TempDir() + "arbench-broken-topo-" + std::to_string(::getpid()) + ".json";
  const CliResult r =
      run_shell("ARBENCH_TEST_BROKEN_P2P=1,2 " + std::string(ARBENCH_EXE) + " topo --backend host --gpus 4 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Functional peer-to-peer check"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank:1 -> rank:2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("reported-but-broken"), std::string::npos) << r.output;
  std::ifstream in(out);
  ASSERT_TRUE(in.good()) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["source"], "host");
  EXPECT_EQ(doc["peer_check"]["status"][1][2], "reported-but-broken");
  EXPECT_EQ(doc["peer_check"]["status"][2][1], "reported-but-broken");
  EXPECT_EQ(doc["peer_check"]["status"][0][1], "ok");
  EXPECT_EQ(doc["peer_check"]["status"][3][3], "self");
  std::remove(out.c_str());
  const CliResult healthy = run_arbench("topo --backend host --gpus 3");
  EXPECT_EQ(healthy.exit_code, 0) << healthy.output;
  // "BROKEN" only in the legend: no cell, no detail line.
  std::size_t broken_words = 0;
  for (auto at = healthy.output.find("BROKEN"); at != std::string::npos; at = healthy.output.find("BROKEN", at + 1))
    ++broken_words;
  EXPECT_EQ(broken_words, 1u) << healthy.output;
  EXPECT_EQ(healthy.output.find(" -> "), std::string::npos) << healthy.output;
}

TEST(CliPeerCheck, TheSwitchAndTheHostOptionsAreValidated) {
  CliResult r = run_shell("ARBENCH_TEST_BROKEN_P2P=3,3 " + std::string(ARBENCH_EXE) + " run --backend host --gpus 4 -b 1K -e 1K");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ARBENCH_TEST_BROKEN_P2P=3,3: two different ranks"), std::string::npos) << r.output;
  r = run_arbench("topo --backend host --gpus 9");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--gpus: 9"), std::string::npos) << r.output;
  r = run_arbench("topo --backend host --loaded");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_arbench("topo --gpus 4 --no-measure");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is for --backend host"), std::string::npos) << r.output;
}

}  // namespace
