// The copy-engine variants' default chunk from the pattern rates (docs/variants.md, "Configurations
// and defaults"): a links file whose copy engines are slow and one whose copy engines are fast give
// different chunks, each case records its chunk and that it came from the rates; without rates the
// fixed policy, with a configuration the configuration. A policy that ignored the rates (a constant
// chunk) gives the same chunk for both files and fails here.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sol/pattern_rates.hpp"
#include "tests/host/kernels/ce/ce_twin_harness.hpp"
#include "tests/host/sol/sol_fixture.hpp"

namespace arbench::testing {
namespace {

// A topology file with the fixture's patterns, every copy-engine rate at 8 ranks scaled to
// `ce_gbps` (the w8 all-pairs push flows; the other patterns have none or less).
std::string links_file(const std::string& name, double ce_gbps) {
  sol::PatternRates r = sol_fixture::rates();
  for (auto& p : r.patterns)
    for (auto& s : p.sizes)
      for (auto& g : s.ce_gbps)
        if (g) g = p.key == "w8 all-pairs push" ? ce_gbps : ce_gbps / 2;
  const std::string path = ::testing::TempDir() + "arbench-ce-" + name + "-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << nlohmann::json{{"patterns", sol::pattern_rates_to_json(r)}}.dump();
  return path;
}

std::map<std::string, std::string> settings_of(const CeVariant& v) {
  std::map<std::string, std::string> m;
  for (const auto& [k, val] : v.settings()) m[k] = val;
  return m;
}

// The copy-engine rates of topology file `file` at 2, 4 and 8 ranks (none: "").
Tuning tuning_of(const std::string& file) {
  Tuning tuning;
  if (file.empty()) return tuning;
  const auto rates = sol::read_pattern_rates(file);
  EXPECT_TRUE(rates.has_value()) << file;
  if (rates) tuning.copy_engine_gbps = sol::copy_engine_rates(*rates, {2, 4, 8});
  return tuning;
}

const Case kCase{"ce-ring", Family::allreduce, DType::bf16, 8, 8u << 20, 0, 0, false};  // a 1 MiB segment

// ce-ring (or `a`) at 8 ranks, 8 MiB, prepared with the rates of `file` (none: "").
std::map<std::string, std::string> prepared(const std::string& file, CeAlgo a = CeAlgo::ring, std::size_t chunk = 0,
                                            bool planted = false) {
  HostFabric fabric(8);
  CeOptions opt;
  opt.config.chunk = chunk;
  opt.ignore_rates = planted;
  auto v = make_ce_twin(a, opt);
  TwinCase t;
  t.c = kCase;
  t.c.variant = ce_algo_name(a);
  t.in = fabric.alloc(t.c.bytes, Placement::symmetric);
  t.out = fabric.alloc(t.c.bytes, Placement::symmetric);
  t.buffers.in = t.in.get();
  t.buffers.out = t.out.get();
  const Tuning tuning = tuning_of(file);
  const std::size_t planned = v->scratch_bytes_per_rank(t.c, fabric, tuning);  // what the run reserves
  v->prepare(t.c, fabric, t.buffers, tuning);
  auto s = settings_of(*v);
  EXPECT_GE(planned, std::stoul(s.at("staging_bytes_per_rank"))) << "the reservation must follow the rate too";
  return s;
}

TEST(CeChunkRates, SlowAndFastCopyEnginesGiveDifferentChunksFromTheRates) {
  const std::string slow = links_file("slow", 10), fast = links_file("fast", 50);
  {
    const auto rates = sol::copy_engine_rates(*sol::read_pattern_rates(fast), {2, 4, 8});
    ASSERT_EQ(rates.count(8), 1u);
    EXPECT_DOUBLE_EQ(rates.at(8), 50.0);  // the fastest flow at 8 ranks
    EXPECT_EQ(rates.count(2), 0u);        // the fixture's 2-rank pattern has no copy-engine rate
  }
  const auto s = prepared(slow), f = prepared(fast), none = prepared("");
  EXPECT_EQ(s.at("ce_chunk"), std::to_string(512u << 10));  // 10 GB/s x 40 us = 400 kB -> 512 KiB
  EXPECT_EQ(f.at("ce_chunk"), std::to_string(2u << 20));    // 50 GB/s x 40 us = 2 MB -> 2 MiB
  EXPECT_NE(s.at("ce_chunk"), f.at("ce_chunk"));
  EXPECT_NE(f.at("ce_chunk_source").find("copy-engine rate 50 GB/s"), std::string::npos) << f.at("ce_chunk_source");
  EXPECT_EQ(none.at("ce_chunk"), std::to_string(256u << 10));  // a quarter of the segment, the fixed minimum
  EXPECT_EQ(none.at("ce_chunk_source"), "fixed policy (no copy-engine rate known)");
  // The memory a run reserves follows the chunk (ce-twoshot's staging: N x slots x chunk).
  HostFabric fabric(8);
  auto two = make_ce_twin(CeAlgo::twoshot);
  EXPECT_EQ(two->scratch_bytes_per_rank(kCase, fabric, tuning_of(fast)) -
                two->scratch_bytes_per_rank(kCase, fabric, tuning_of(slow)),
            8u * 2 * ((2u << 20) - (512u << 10)));
  const auto asked = prepared(fast, CeAlgo::ring, 1u << 20);  // `ce-ring[chunk:1M]`: the configuration
  EXPECT_EQ(asked.at("ce_chunk"), std::to_string(1u << 20));
  EXPECT_EQ(asked.at("ce_chunk_source"), "configuration");
  std::filesystem::remove(slow);
  std::filesystem::remove(fast);
}

// The planted bug: a default chunk that ignores the rates (a constant) gives both files one chunk,
// which the check above (EXPECT_NE of the two chunks) would fail on.
TEST(CeChunkRates, AConstantChunkIsCaught) {
  const std::string slow = links_file("slow-planted", 10), fast = links_file("fast-planted", 50);
  const auto s = prepared(slow, CeAlgo::ring, 0, true), f = prepared(fast, CeAlgo::ring, 0, true);
  EXPECT_EQ(s.at("ce_chunk"), f.at("ce_chunk")) << "the planted constant chunk should not follow the rates";
  EXPECT_EQ(f.at("ce_chunk_source"), "fixed policy (no copy-engine rate known)");
  std::filesystem::remove(slow);
  std::filesystem::remove(fast);
}

// The rates a CPU probe measured (CPU timing) say nothing about copy engines: no rate.
TEST(CeChunkRates, CpuTimingsGiveNoRate) {
  sol::PatternRates r = sol_fixture::rates();
  r.timing = "cpu";
  EXPECT_TRUE(sol::copy_engine_rates(r, {8}).empty());
}

}  // namespace
}  // namespace arbench::testing
