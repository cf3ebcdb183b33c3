// Every way out of a run leaves the cases that finished (bench/run/run_outputs.hpp
// ResultCheckpoint, arbench/last_words.hpp): the result file is rewritten as cases finish, a
// process that ends where the run loop cannot (a watchdog giving up on a hung NCCL call, a World
// that aborts) writes it at once with its reason, and an error that is not a case's own (the
// environment failing mid-sweep) stops the run with the finished cases written. Before, such an
// error escaped run_sweep and no file was written; an abort or a kill left nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "arbench/last_words.hpp"
#include "kernels/reference/reference_twin.hpp"
#include "run/run_command.hpp"

namespace arbench::testing {
namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  return nlohmann::json::parse(in, nullptr, false);
}

// The reference all-reduce, with `hook` called in prepare() of every case (its byte count).
class Hooked final : public Variant {
 public:
  explicit Hooked(std::function<void(std::size_t)> hook) : hook_(std::move(hook)), inner_(reference_entry().host()) {}
  Support supports(const Case& c, const Fabric& f) const override { return inner_->supports(c, f); }
  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    hook_(c.bytes);
    inner_->prepare(c, f, b, t);
  }
  void launch(int rank, Stream s) override { inner_->launch(rank, s); }

 private:
  std::function<void(std::size_t)> hook_;
  std::unique_ptr<Variant> inner_;
};

struct SweepRun {
  std::string out = ::testing::TempDir() + "arbench-exits-" + std::to_string(::getpid()) + ".json";
  ~SweepRun() { std::filesystem::remove(out); }
  int go(std::function<void(std::size_t)> hook) {
    Registry reg;
    VariantEntry e;
    e.name = "hooked";
    e.host = [hook] { return std::make_unique<Hooked>(hook); };
    e.no_gpu_reason = "test variant";
    reg.add(e);
    RunConfig cfg;
    cfg.backend = "host";
    cfg.gpus = {2};
    cfg.families = {Family::allreduce};
    cfg.min_bytes = 1024;
    cfg.max_bytes = 4096;  // three cases: 1024, 2048, 4096
    cfg.warmup = 1;
    cfg.samples = 2;
    cfg.pipelined_ops = 0;
    cfg.quiet = true;
    cfg.out_json = out;
    return run_sweep(cfg, false, solo_world(), reg);
  }
};

TEST(RunExits, AnEnvironmentErrorMidSweepStopsTheRunAndWritesTheFinishedCases) {
  SweepRun run;
  const int code = run.go([](std::size_t bytes) {
    if (bytes == 2048) throw EnvironmentError("the GPU went away");
  });
  EXPECT_EQ(code, kExitEnvironment);
  const nlohmann::json doc = read_json(run.out);
  ASSERT_TRUE(doc.is_object()) << "no result file";
  const auto& a = doc["arbench"];
  ASSERT_EQ(a["cases"].size(), 1u);
  EXPECT_EQ(a["cases"][0]["bytes"], 1024);
  ASSERT_TRUE(a.contains("incomplete"));
  EXPECT_NE(a["incomplete"]["reason"].get<std::string>().find("the GPU went away"), std::string::npos);
  EXPECT_EQ(a["incomplete"]["not_run"].size(), 2u);
}

TEST(RunExits, TheFileHoldsTheFinishedCasesWhileTheRunGoes) {
  SweepRun run;
  nlohmann::json seen;
  EXPECT_EQ(run.go([&](std::size_t bytes) {
    if (bytes == 2048) seen = read_json(run.out);  // what a kill at this moment would leave
  }), 0);
  ASSERT_TRUE(seen.is_object()) << "no file while the run went on";
  EXPECT_EQ(seen["arbench"]["cases"].size(), 1u);
  EXPECT_TRUE(seen["arbench"].contains("incomplete"));
  const nlohmann::json done = read_json(run.out);
  EXPECT_EQ(done["arbench"]["cases"].size(), 3u);
  EXPECT_FALSE(done["arbench"].contains("incomplete")) << "the run reached its end";
}

TEST(RunExits, LastWordsWriteTheFinishedCasesWithTheirReason) {
  SweepRun run;
  nlohmann::json seen;
  EXPECT_EQ(run.go([&](std::size_t bytes) {
    if (bytes != 4096) return;
    say_last_words("NCCL setup hung: creating the NCCL communicators");  // what a watchdog says
    seen = read_json(run.out);
  }), 0);
  ASSERT_TRUE(seen.is_object());
  EXPECT_EQ(seen["arbench"]["cases"].size(), 2u);
  EXPECT_EQ(seen["arbench"]["incomplete"]["reason"], "NCCL setup hung: creating the NCCL communicators");
}

}  // namespace
}  // namespace arbench::testing
