// Floors held against published measurements: the links files of the boxes whose rates are public
// (results/reference/links-*.json, written from the published figures by make_published_links.py)
// price arbench's schedules there, and no published all-reduce time of that box may sit below the
// floor of the same schedule, size and GPU count; the PR that published a box's ring floor gets it
// back from arbench's ring.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/peers/peer_traffic.hpp"
#include "kernels/ring/ring_variant.hpp"
#include "kernels/symm/symm_variant.hpp"
#include "sol/floor.hpp"

using namespace arbench;
using namespace arbench::sol;

namespace {

std::string reference(const std::string& name) { return std::string(ARBENCH_SOURCE_DIR) + "/results/reference/" + name; }

std::optional<SolFloor> floor_on(const PatternRates& r, Traffic (*fn)(const TrafficQuery&), const std::string& config,
                                 int world, std::size_t bytes, std::string* why) {
  Case c;
  c.variant = "published";
  c.world = world;
  c.bytes = bytes;
  const TrafficQuery q{c, config, {}, {}, {}};
  return traffic_floor(fn(q), q, FloorInputs{&r, {}, "published"}, std::nullopt, why);
}

// The lowest floor arbench gives any one- or two-shot schedule (its own and the peers'): a
// published custom all-reduce whose schedule is not published is held to that.
double lowest_custom_floor(const PatternRates& r, int world, std::size_t bytes) {
  double lowest = 1e300;
  const std::vector<std::pair<Traffic (*)(const TrafficQuery&), std::string>> customs = {
      {&oneshot_pull_traffic, ""}, {&oneshot_push_traffic, ""}, {&twoshot_traffic, ""},
      {&vllm_custom_traffic, "1stage"}, {&vllm_custom_traffic, "2stage"},
      {&flashinfer_pcie_ipc_traffic, "unstaged"}, {&flashinfer_pcie_ipc_traffic, "flat-staged"}};
  for (const auto& [fn, config] : customs) {
    std::string why;
    if (const auto f = floor_on(r, fn, config, world, bytes, &why)) lowest = std::min(lowest, f->sol_us);
  }
  return lowest;
}

nlohmann::json published_set(const std::string& id) {
  std::ifstream in(reference("published-pcie-allreduce.json"));
  const auto j = nlohmann::json::parse(in);
  for (const auto& s : j.at("sets"))
    if (s.at("id") == id) return s;
  throw std::runtime_error("no published set " + id);
}

}  // namespace

// PR #4870's own ring floor on its switch-pair box (CX8): a 96 MiB all-reduce moves 168 MiB per
// rank at 8 ranks, at the flat ring's 49.64 GB/s: 3549 us; at 4 ranks 144 MiB at 52.32: 2886 us.
// No hop is published, so the waits cost nothing and the floor says so.
TEST(SolPublishedFloors, ArbenchsRingReproducesPr4870sRingFloor) {
  const auto r = read_pattern_rates(reference("links-flashinfer-4870-switch-pairs.json"));
  ASSERT_TRUE(r);
  std::string why;
  const auto eight = floor_on(*r, &ring_traffic, "", 8, std::size_t(96) << 20, &why);
  ASSERT_TRUE(eight) << why;
  EXPECT_NEAR(eight->sol_us, 168.0 * (1 << 20) / 49.64e3, 1e-6);
  EXPECT_EQ(std::lround(eight->sol_us), 3549);
  EXPECT_NE(eight->notes.front().find("no hop latency"), std::string::npos) << eight->notes.front();
  const auto four = floor_on(*r, &ring_traffic, "", 4, std::size_t(96) << 20, &why);
  ASSERT_TRUE(four) << why;
  EXPECT_EQ(std::lround(four->sol_us), 2886);
  // What the PR did not publish is not invented: no all-pairs rate at 8 ranks, so no one-shot floor.
  EXPECT_FALSE(floor_on(*r, &oneshot_pull_traffic, "", 8, 1 << 20, &why));
  EXPECT_NE(why.find("w8 all-pairs pull was not measured"), std::string::npos) << why;
}

// The 8x RTX PRO 6000 box behind three switches: every published all-reduce time of it (NCCL's
// and the custom all-reduce's, bf16, 8 GPUs) at or above arbench's floor for it.
TEST(SolPublishedFloors, NoPublishedTimeOfTheRtx6000BoxIsBelowItsFloor) {
  const std::string file = reference("links-rtx6kpro-8x.json");
  const auto r = read_pattern_rates(file);
  ASSERT_TRUE(r);
  std::ifstream in(file);
  const auto links = nlohmann::json::parse(in);
  ASSERT_EQ(links.at("published_sets"), nlohmann::json::array({"rtx6kpro-8x-switches-custom-vs-nccl"}));
  const auto set = published_set("rtx6kpro-8x-switches-custom-vs-nccl");
  ASSERT_EQ(set.at("gpus"), 8);
  int held = 0;
  for (const auto& [bytes_text, us] : set.at("series").at("nccl").items()) {
    std::string why;
    const auto f = floor_on(*r, &nccl_traffic, "", 8, std::stoul(bytes_text), &why);
    ASSERT_TRUE(f) << why;
    EXPECT_LE(f->sol_us, us.get<double>()) << "nccl at " << bytes_text << " bytes: " << f->schedule;
    ++held;
  }
  for (const auto& [bytes_text, us] : set.at("series").at("custom").items()) {
    EXPECT_LE(lowest_custom_floor(*r, 8, std::stoul(bytes_text)), us.get<double>()) << "custom at " << bytes_text;
    ++held;
  }
  EXPECT_EQ(held, 12);
}

// The check can fail: the same box with a hop ten times the published one puts NCCL's floor at
// 256 bytes above its published 24.6 us (14 ring steps x 3.6 us).
TEST(SolPublishedFloors, TheCheckFailsOnABoxSlowerThanPublished) {
  auto r = read_pattern_rates(reference("links-rtx6kpro-8x.json"));
  ASSERT_TRUE(r);
  for (auto& p : r->patterns)
    for (auto& h : p.idle_latency_us) h = *h * 10;
  std::string why;
  const auto f = floor_on(*r, &nccl_traffic, "", 8, 256, &why);
  ASSERT_TRUE(f) << why;
  EXPECT_GT(f->sol_us, 24.6);
}
