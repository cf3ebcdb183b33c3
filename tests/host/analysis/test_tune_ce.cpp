// `arbench tune` chooses among the copy-engine variants' configurations like among any variants
// (docs/variants.md, "Configurations and defaults"): a fixture run of `ring`, `ce-ring[chunk:1M]`
// and `ce-ring[chunk:4M]` at 8 ranks, through the registry's dispatch filter with the copy-engine
// entry's real configurations (with_ce_configurations, as ce_gpu.cu registers them): `ring` below
// 4 MiB, `ce-ring[chunk:1M]` from 4 MiB, `ce-ring[chunk:4M]` from 32 MiB. A configuration the
// entry does not accept (`chunk:17`, not a multiple of 16) is no dispatch candidate. Without the
// configurations (a plain entry) the configured cases would all be left out, and ring would win.
#include <gtest/gtest.h>

#include "analysis/tune.hpp"
#include "analysis/tune_report.hpp"
#include "kernels/ce/ce_twin.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using testing::ar_name;
using testing::jittered;

// ce-ring and ring as a cuda registry holds them (the GPU factories stand in for the real ones:
// tune only asks whether a name runs on the cuda backend).
Registry ce_registry(bool with_configurations) {
  Registry reg;
  VariantEntry ring;
  ring.name = "ring";
  ring.gpu = [] { return std::unique_ptr<Variant>(); };
  reg.add(ring);
  VariantEntry ce = ce_host_entry(CeAlgo::ring);
  ce.gpu = ce.host;
  if (with_configurations)
    ce = with_ce_configurations(ce, CeAlgo::ring, [](CeAlgo a, CeOptions o) { return make_ce_twin(a, o); });
  reg.add(ce);
  return reg;
}

// Medians in us at 8 ranks: ring wins up to 2 MiB; chunk:1M from 4 MiB; chunk:4M from 32 MiB.
ResultFile fixture() {
  std::vector<testing::SynthCase> cases;
  unsigned seed = 1;
  for (std::uint64_t b = 1u << 20; b <= (64u << 20); b *= 2) {
    const double mib = double(b) / (1u << 20);
    const double ring = 10 + 30 * mib, small_chunks = 40 + 20 * mib, big_chunks = 150 + 14 * mib;
    cases.push_back({ar_name("ring", 8, b), jittered(ring, 0.005, 30, seed++)});
    cases.push_back({ar_name("ce-ring[chunk:1M]", 8, b), jittered(small_chunks, 0.005, 30, seed++)});
    cases.push_back({ar_name("ce-ring[chunk:4M]", 8, b), jittered(big_chunks, 0.005, 30, seed++)});
    cases.push_back({ar_name("ce-ring[chunk:17]", 8, b), jittered(1, 0.005, 30, seed++)});
  }
  return parse_result_json(testing::make_result(cases), "ce.json");
}

TEST(TuneCe, ChoosesAmongCopyEngineConfigurationsLikeAnyVariant) {
  const Registry reg = ce_registry(true);
  const TuneReport rep = tune_results(fixture(), 0.01, registry_dispatch_filter(reg));
  ASSERT_EQ(rep.tables.size(), 1u);
  for (const TunePoint& p : rep.tables[0].points) {
    const char* want = p.size <= (2u << 20) ? "ring" : p.size < (32u << 20) ? "ce-ring[chunk:1M]" : "ce-ring[chunk:4M]";
    EXPECT_EQ(p.best, want) << p.size;
    EXPECT_TRUE(p.significant) << p.size;
  }
  const auto& rules = rep.tables[0].rules;
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].variant, "ring");
  EXPECT_EQ(rules[1].variant, "ce-ring[chunk:1M]");
  EXPECT_EQ(rules[2].variant, "ce-ring[chunk:4M]");
  ASSERT_EQ(rep.ignored.size(), 1u);
  EXPECT_NE(rep.ignored[0].find("ce-ring[chunk:17] (7 cases): not a dispatch candidate"), std::string::npos)
      << rep.ignored[0];
  const std::string text = format_tune(rep, ReportFormat::text);
  EXPECT_NE(text.find("ce-ring[chunk:4M]"), std::string::npos) << text;
}

TEST(TuneCe, WithoutTheConfigurationsOnlyTheBaseVariantsCompete) {
  const TuneReport rep = tune_results(fixture(), 0.01, registry_dispatch_filter(ce_registry(false)));
  for (const TunePoint& p : rep.tables.at(0).points) EXPECT_EQ(p.best, "ring") << p.size;
  EXPECT_EQ(rep.ignored.size(), 3u);
}

}  // namespace
}  // namespace arbench
