// The run options that change what is measured reach the variant: a spy registered here records
// what run_sweep hands it (the case, the tuning, the fabric's bound, the inputs it reads), so an
// option that is parsed and recorded but never applied fails here. (The executable's side:
// tests/cli/test_cli_measured_options.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "run/run_command.hpp"

namespace arbench::testing {
namespace {

struct Seen {
  std::mutex mu;
  std::vector<Case> cases;
  std::vector<Tuning> tunings;
  std::vector<double> timeouts;
  std::vector<bool> out_is_in;
  std::vector<std::uint64_t> input_hashes;  // rank 0's input at the case's first launch
};

class Spy final : public Variant {
 public:
  explicit Spy(std::shared_ptr<Seen> seen) : seen_(std::move(seen)) {}
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    in_ = b.in;
    bytes_ = c.bytes;
    std::lock_guard lk(seen_->mu);
    seen_->cases.push_back(c);
    seen_->tunings.push_back(t);
    seen_->timeouts.push_back(f.timeout_s());
    seen_->out_is_in.push_back(b.out == b.in);
  }
  void launch(int rank, Stream) override {
    if (rank != 0 || hashed_) return;
    hashed_ = true;
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a of rank 0's input bytes
    const auto* p = static_cast<const unsigned char*>(in_->local(0));
    for (std::size_t i = 0; i < bytes_; ++i) h = (h ^ p[i]) * 1099511628211ull;
    std::lock_guard lk(seen_->mu);
    seen_->input_hashes.push_back(h);
  }

 private:
  std::shared_ptr<Seen> seen_;
  RankBuffers* in_ = nullptr;
  std::size_t bytes_ = 0;
  bool hashed_ = false;
};

// Runs `cfg` (host backend, the spy for both families, no check: the spy computes nothing).
std::shared_ptr<Seen> run_spy(RunConfig cfg) {
  auto seen = std::make_shared<Seen>();
  Registry reg;
  for (Family fam : {Family::allreduce, Family::allreduce_rmsnorm}) {
    VariantEntry e;
    e.name = fam == Family::allreduce ? "spy" : "spy-fused";
    e.family = fam;
    e.host = [seen] { return std::make_unique<Spy>(seen); };
    e.no_gpu_reason = "test variant";
    reg.add(e);
  }
  cfg.backend = "host";
  if (cfg.gpus.empty()) cfg.gpus = {2};
  if (!cfg.min_bytes) cfg.min_bytes = cfg.max_bytes = 1024;
  if (cfg.tokens.empty()) cfg.tokens = {2};
  if (!cfg.hidden && cfg.model.empty()) cfg.hidden = 64;
  cfg.warmup = 1;
  cfg.samples = 1;
  cfg.pipelined_ops = 0;
  cfg.check = false;
  cfg.quiet = true;
  EXPECT_EQ(run_sweep(cfg, false, solo_world(), reg), 0);
  return seen;
}

TEST(RunOptions, SeedChangesTheInputs) {
  RunConfig a, b;
  a.families = b.families = {Family::allreduce};
  a.seed = 1;
  b.seed = 2;
  const auto s1 = run_spy(a), s1again = run_spy(a), s2 = run_spy(b);
  ASSERT_EQ(s1->input_hashes.size(), 1u);
  ASSERT_EQ(s2->input_hashes.size(), 1u);
  EXPECT_EQ(s1->input_hashes, s1again->input_hashes);  // the same seed, the same inputs
  EXPECT_NE(s1->input_hashes, s2->input_hashes);
}

TEST(RunOptions, BlocksEpsTimeoutAndInPlaceReachTheVariant) {
  RunConfig cfg;
  cfg.families = {Family::allreduce};
  cfg.tuning.blocks = 5;
  cfg.timeout_s = 3.5;
  cfg.in_place = true;
  const auto seen = run_spy(cfg);
  ASSERT_EQ(seen->cases.size(), 1u);
  EXPECT_EQ(seen->tunings[0].blocks, 5);
  EXPECT_DOUBLE_EQ(seen->timeouts[0], 3.5);
  EXPECT_TRUE(seen->cases[0].in_place);
  EXPECT_TRUE(seen->out_is_in[0]);

  RunConfig fused;
  fused.families = {Family::allreduce_rmsnorm};
  fused.tuning.eps = 0.25;
  fused.model = "qwen3-32b";  // and no --hidden
  const auto f = run_spy(fused);
  ASSERT_EQ(f->cases.size(), 1u);
  EXPECT_DOUBLE_EQ(f->tunings[0].eps, 0.25);
  EXPECT_EQ(f->cases[0].hidden, 5120);  // the preset's hidden size
  EXPECT_EQ(f->cases[0].tokens, 2);
}

}  // namespace
}  // namespace arbench::testing
