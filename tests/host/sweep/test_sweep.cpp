// Size parsing, sweep expansion and its validation.
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "sweep/sizes.hpp"
#include "sweep/sweep.hpp"

using namespace arbench;

TEST(Sizes, ParsesSuffixes) {
  EXPECT_EQ(parse_size("64"), 64u);
  EXPECT_EQ(parse_size("1K"), 1024u);
  EXPECT_EQ(parse_size("1k"), 1024u);
  EXPECT_EQ(parse_size("16M"), 16u << 20);
  EXPECT_EQ(parse_size("2G"), std::size_t(2) << 30);
  EXPECT_EQ(parse_size("4KiB"), 4096u);
  EXPECT_FALSE(parse_size("").has_value());
  EXPECT_FALSE(parse_size("K").has_value());
  EXPECT_FALSE(parse_size("3X").has_value());
  EXPECT_FALSE(parse_size("-1").has_value());
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(3000), "3000");
  EXPECT_EQ(format_size(16u << 20), "16M");
}

TEST(Sizes, SeriesLikeNcclTests) {
  EXPECT_EQ(size_series(1024, 16384, 2, 2), (std::vector<std::size_t>{1024, 2048, 4096, 8192, 16384}));
  EXPECT_EQ(size_series(1024, 1024, 2, 4), (std::vector<std::size_t>{1024}));
  // Non-integer factors round down to whole elements and never repeat a size.
  auto s = size_series(6, 40, 1.5, 4);
  EXPECT_EQ(s, (std::vector<std::size_t>{4, 8, 12, 20, 28}));  // 6, 9, 13.5, 20.25, 30.4 rounded down
  for (std::size_t b : s) EXPECT_EQ(b % 4, 0u);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_LT(s[i - 1], s[i]);
}

namespace {

Registry test_registry() {
  Registry r;
  auto add = [&](const char* name, Family f, bool gpu, bool host) {
    VariantEntry e;
    e.name = name;
    e.family = f;
    if (gpu) e.gpu = [] { return std::unique_ptr<Variant>(); };
    if (host) e.host = [] { return std::unique_ptr<Variant>(); };
    e.no_gpu_reason = "host only";
    e.no_host_reason = "needs GPUs";
    r.add(e);
  };
  add("nccl", Family::allreduce, true, false);
  add("oneshot-push", Family::allreduce, true, true);
  add("oneshot-pull", Family::allreduce, true, true);
  add("reference", Family::allreduce, false, true);
  add("fused-oneshot", Family::allreduce_rmsnorm, true, true);
  return r;
}

RunConfig base_config() {
  RunConfig c;
  c.gpus = {2, 4};
  c.min_bytes = 1024;
  c.max_bytes = 4096;
  c.families = {Family::allreduce};
  c.tokens = {1, 16};
  c.hidden = 128;
  return c;
}

}  // namespace

TEST(Sweep, ExpandsVariantsDtypesWorldsSizes) {
  RunConfig c = base_config();
  c.dtypes = {DType::bf16, DType::fp32};
  c.variants = {"oneshot-*"};
  Sweep s = expand_sweep(c, test_registry(), Backend::host);
  EXPECT_EQ(s.cases.size(), 2u * 2 * 2 * 3);  // variants x dtypes x worlds x sizes
  EXPECT_TRUE(s.skipped.empty());
  EXPECT_EQ(s.cases.front().name(), "allreduce/oneshot-push/bf16/gpus:2/bytes:1024");
}

TEST(Sweep, UnavailableVariantsAreSkippedWithReason) {
  RunConfig c = base_config();
  c.variants = {"nccl", "reference"};
  Sweep s = expand_sweep(c, test_registry(), Backend::host);
  ASSERT_EQ(s.skipped.size(), 6u);
  EXPECT_EQ(s.skipped.front().reason, "needs GPUs");
  EXPECT_EQ(s.cases.size(), 6u);
}

TEST(Sweep, FusedFamilyUsesTokensAndHidden) {
  RunConfig c = base_config();
  c.families = {Family::allreduce_rmsnorm};
  Sweep s = expand_sweep(c, test_registry(), Backend::host);
  ASSERT_EQ(s.cases.size(), 4u);
  EXPECT_EQ(s.cases[1].name(), "allreduce_rmsnorm/fused-oneshot/bf16/gpus:2/tokens:16/hidden:128");
  EXPECT_EQ(s.cases[1].bytes, 16u * 128 * 2);
}

TEST(Sweep, BadInputsAreUsageErrors) {
  const Registry reg = test_registry();
  auto expect_usage = [&](RunConfig c, const std::string& needle) {
    try {
      expand_sweep(c, reg, Backend::host);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_EQ(e.exit_code(), 2);
    }
  };
  RunConfig c = base_config();
  c.min_bytes = 8192;
  expect_usage(c, "larger than --max-bytes");
  c = base_config();
  c.step_factor = 1.0;
  expect_usage(c, "--step-factor must be > 1");
  c = base_config();
  c.min_bytes = 1023;
  expect_usage(c, "not a multiple of the bf16 element size");
  c = base_config();
  c.dtypes = {DType::fp32};
  c.max_bytes = 4098;
  expect_usage(c, "not a multiple of the fp32 element size");
  c = base_config();
  c.variants = {"nope"};
  expect_usage(c, "unknown variant 'nope'");
  c = base_config();
  c.families = {Family::allreduce_rmsnorm};
  c.variants = {"nccl"};
  expect_usage(c, "the sweep is empty");
}

TEST(RunConfigDefaults, HostDefaultsAndGpuLimits) {
  RunConfig c;
  resolve_defaults(c, Backend::host, 0);
  EXPECT_EQ(c.gpus, (std::vector<int>{2, 4, 8}));
  EXPECT_EQ(*c.min_bytes, 1024u);
  EXPECT_GT(*c.samples, 0);
  RunConfig g;
  resolve_defaults(g, Backend::cuda, 8);
  EXPECT_EQ(g.gpus, (std::vector<int>{2, 4, 8}));
  RunConfig g6;
  resolve_defaults(g6, Backend::cuda, 6);
  EXPECT_EQ(g6.gpus, (std::vector<int>{2, 4, 6}));
  RunConfig g1;
  resolve_defaults(g1, Backend::cuda, 1);
  EXPECT_EQ(g1.gpus, (std::vector<int>{1}));
  RunConfig too_many;
  too_many.gpus = {16};
  EXPECT_THROW(resolve_defaults(too_many, Backend::cuda, 8), UsageError);
  // The message a user with 8 GPUs sees for --gpus 16 (the CLI test needs a GPU to get here).
  try {
    RunConfig again;
    again.gpus = {16};
    resolve_defaults(again, Backend::cuda, 8);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--gpus 16 asks for more GPUs than the 8 present"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--backend single-gpu"), std::string::npos) << e.what();
  }
  RunConfig model;
  model.model = "llama3-70b";
  resolve_defaults(model, Backend::host, 0);
  EXPECT_EQ(model.hidden, 8192);
  RunConfig bad_model;
  bad_model.model = "gpt-9";
  EXPECT_THROW(resolve_defaults(bad_model, Backend::host, 0), UsageError);
}

TEST(RunConfigDefaults, HostThreadsNeedTheHostBackendAndAPolicyBlockSize) {
  const std::vector<Family> all = {Family::allreduce, Family::allreduce_rmsnorm};
  EXPECT_EQ(host_threads_problem(0, Backend::cuda, all), "");  // unset: nothing to check
  EXPECT_EQ(host_threads_problem(32, Backend::host, all), "");
  EXPECT_EQ(host_threads_problem(3, Backend::host, {Family::allreduce}), "");
  EXPECT_NE(host_threads_problem(3, Backend::host, all).find("divides their 512 RMSNorm lanes"), std::string::npos);
  EXPECT_NE(host_threads_problem(513, Backend::host, all).find("use 1 to 512"), std::string::npos);
  EXPECT_NE(host_threads_problem(4, Backend::cuda, all).find("only the host backend runs"), std::string::npos);
  RunConfig c;
  c.tuning.host_threads = 4;
  EXPECT_THROW(resolve_defaults(c, Backend::single_gpu, 1), UsageError);
}

namespace {

template <class F>
std::string usage_message(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  ADD_FAILURE() << "no UsageError";
  return {};
}

}  // namespace

TEST(Sweep, FilterSelectsByCaseNameLikeBenchmarkFilter) {
  RunConfig c = base_config();
  c.variants = {"oneshot-*", "nccl"};
  Sweep s = expand_sweep(c, test_registry(), Backend::host);
  const std::size_t all = s.cases.size() + s.skipped.size();
  EXPECT_EQ(filter_sweep(s, ""), 0u);
  EXPECT_EQ(filter_sweep(s, "all"), 0u);
  EXPECT_EQ(filter_sweep(s, "gpus:4/bytes:(1024|2048)$"), all - 3 * 2);  // 3 variants x 2 sizes left
  for (const auto& k : s.cases) EXPECT_NE(k.name().find("gpus:4"), std::string::npos) << k.name();
  Sweep t = expand_sweep(c, test_registry(), Backend::host);
  filter_sweep(t, "-oneshot");  // a leading '-' keeps what does not match
  EXPECT_TRUE(t.cases.empty());
  EXPECT_EQ(t.skipped.size(), 6u);  // nccl, skipped on the host backend but still selected
  Sweep u = expand_sweep(c, test_registry(), Backend::host);
  EXPECT_NE(usage_message([&] { filter_sweep(u, "nomatch"); })
                .find("--benchmark_filter=nomatch matches none of the 18 cases of the sweep"),
            std::string::npos);
  EXPECT_NE(usage_message([&] { filter_sweep(u, "gpus:(2"); }).find("--benchmark_filter=gpus:(2 is not a valid"),
            std::string::npos);
}

TEST(Sweep, ZeroSizesGetTheirOwnMessage) {
  RunConfig c = base_config();
  c.max_bytes = 0;  // -e 0: not "--min-bytes 1K is larger than --max-bytes 0"
  EXPECT_NE(usage_message([&] { expand_sweep(c, test_registry(), Backend::host); })
                .find("--max-bytes 0: the largest message must be > 0 bytes"),
            std::string::npos);
  c = base_config();
  c.min_bytes = 0;
  EXPECT_NE(usage_message([&] { expand_sweep(c, test_registry(), Backend::host); }).find("--min-bytes 0"),
            std::string::npos);
}

TEST(RunConfigDefaults, ListedTwiceIsAUsageError) {
  const auto message = [](auto edit) {
    RunConfig c;
    edit(c);
    return usage_message([&] { resolve_defaults(c, Backend::host, 0); });
  };
  EXPECT_NE(message([](RunConfig& c) { c.gpus = {2, 4, 2}; }).find("--gpus: 2 is listed twice"), std::string::npos);
  EXPECT_NE(message([](RunConfig& c) { c.dtypes = {DType::bf16, DType::bf16}; }).find("--dtype: bf16 is listed twice"),
            std::string::npos);
  EXPECT_NE(message([](RunConfig& c) { c.tokens = {1, 16, 1}; }).find("--tokens: 1 is listed twice"),
            std::string::npos);
  EXPECT_NE(message([](RunConfig& c) { c.variants = {"ring", "ring"}; }).find("--variants: 'ring' is listed twice"),
            std::string::npos);
  EXPECT_NE(message([](RunConfig& c) { c.families = {Family::allreduce, Family::allreduce}; })
                .find("--family: allreduce is listed twice"),
            std::string::npos);
}

TEST(RunConfigDefaults, HiddenAndRingOrderAreCheckedUpFront) {
  RunConfig c;
  c.hidden = 0;  // --hidden 0 used to mean "the default" and silently ran 8192
  EXPECT_NE(usage_message([&] { resolve_defaults(c, Backend::host, 0); }).find("--hidden 0: the hidden size must be >= 1"),
            std::string::npos);
  RunConfig r;
  r.gpus = {2};
  r.tuning.ring_order = {0, 0};
  EXPECT_NE(usage_message([&] { resolve_defaults(r, Backend::host, 0); }).find("--ring-order 0,0: rank 0 appears twice"),
            std::string::npos);
  RunConfig w;
  w.gpus = {2, 4};
  w.tuning.ring_order = {1, 0};  // a permutation of 2 ranks, but the sweep also has 4
  EXPECT_NE(usage_message([&] { resolve_defaults(w, Backend::host, 0); }).find("names 2 ranks, but the case has 4"),
            std::string::npos);
  RunConfig ok;
  ok.gpus = {4};
  ok.tuning.ring_order = {0, 2, 3, 1};
  ok.hidden = 4096;
  EXPECT_NO_THROW(resolve_defaults(ok, Backend::host, 0));
  EXPECT_EQ(ok.hidden, 4096);
}

namespace {

// A variant that only says whether it runs on NCCL's communicators.
class StubVariant final : public Variant {
 public:
  explicit StubVariant(bool nccl) : nccl_(nccl) {}
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case&, Fabric&, const OpBuffers&, const Tuning&) override {}
  void launch(int, Stream) override {}
  bool needs_nccl() const override { return nccl_; }

 private:
  bool nccl_;
};

Registry provider_registry() {
  Registry r;
  for (auto [name, nccl] : {std::pair{"nccl", true}, std::pair{"nccl-symm", true}, std::pair{"oneshot-pull", false},
                            std::pair{"twoshot", false}}) {
    VariantEntry e;
    e.name = name;
    e.family = Family::allreduce;
    const bool n = nccl;
    e.gpu = [n] { return std::make_unique<StubVariant>(n); };
    e.host = [] { return std::make_unique<StubVariant>(false); };
    r.add(e);
  }
  return r;
}

}  // namespace

// --symm-mem all: every custom kernel once per provider, as cases of their own; the NCCL variants
// once (they run on NCCL's memory whatever is asked); other choices and backends name no provider.
TEST(Sweep, SymmMemAllRunsEachCustomKernelOnBothProviders) {
  RunConfig c = base_config();
  c.gpus = {2};
  c.max_bytes = 1024;
  c.symm_mem = "all";
  const Sweep s = expand_sweep(c, provider_registry(), Backend::cuda);
  std::vector<std::string> names;
  for (const Case& x : s.cases) names.push_back(x.name());
  EXPECT_EQ(names, (std::vector<std::string>{"allreduce/nccl/bf16/gpus:2/bytes:1024",
                                             "allreduce/nccl-symm/bf16/gpus:2/bytes:1024",
                                             "allreduce/oneshot-pull/bf16/gpus:2/bytes:1024/symm:cuda",
                                             "allreduce/oneshot-pull/bf16/gpus:2/bytes:1024/symm:nccl",
                                             "allreduce/twoshot/bf16/gpus:2/bytes:1024/symm:cuda",
                                             "allreduce/twoshot/bf16/gpus:2/bytes:1024/symm:nccl"}));
  for (const char* choice : {"auto", "cuda", "nccl"}) {
    c.symm_mem = choice;
    for (const Case& x : expand_sweep(c, provider_registry(), Backend::cuda).cases) EXPECT_TRUE(x.symm.empty()) << choice;
  }
  c.symm_mem = "all";
  for (const Case& x : expand_sweep(c, provider_registry(), Backend::host).cases) EXPECT_TRUE(x.symm.empty());
}

// A lossy variant runs only when asked for: by its name or by a pattern that says fp8; never in
// the default sweep nor through a wildcard that does not (`oneshot-*`). Planted: select_variants
// ignoring VariantEntry::lossy fails the first two expectations.
TEST(Sweep, ALossyVariantRunsOnlyWhenAskedFor) {
  Registry r = test_registry();
  VariantEntry fp8;
  fp8.name = "oneshot-fp8";
  fp8.family = Family::allreduce;
  fp8.host = [] { return std::unique_ptr<Variant>(); };
  fp8.lossy = true;
  r.add(fp8);
  auto selected = [&](std::vector<std::string> patterns) {
    const auto v = select_variants(r, patterns, Family::allreduce);
    return std::find(v.begin(), v.end(), "oneshot-fp8") != v.end();
  };
  EXPECT_FALSE(selected({}));
  EXPECT_FALSE(selected({"oneshot-*"}));
  EXPECT_TRUE(selected({"oneshot-fp8"}));
  EXPECT_TRUE(selected({"*-fp8"}));
  EXPECT_TRUE(selected({"oneshot-*", "*fp8*"}));
}
