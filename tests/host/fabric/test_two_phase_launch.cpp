// Two-phase launch: the work that consumes a collective's output is enqueued after the NCCL
// group ends. A fake NCCL models the one rule that matters here: a collective called between
// ncclGroupStart and ncclGroupEnd reaches its stream only at ncclGroupEnd. Each rank's "stream"
// is a log of what was enqueued on it, in order. unfused-nccl's norm must come after its
// all-reduce on every rank; launched inside the group (as before launch_after existed), it came
// first and normalised the previous op's sum.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/fabric/cuda/op_phases.hpp"
#include "kernels/fused/fused_variant.hpp"
#include "workload/workload.hpp"

namespace arbench {
namespace {

using StreamLog = std::vector<std::string>;

// NCCL's group rule: inside a group, a collective is held back until the group ends.
struct FakeNccl {
  std::vector<StreamLog>* logs = nullptr;
  bool in_group = false;
  std::vector<std::pair<StreamLog*, std::string>> held;
  void group_start() { in_group = true; }
  void group_end() {
    for (auto& [log, what] : held) log->push_back(what);
    held.clear();
    in_group = false;
  }
  void collective(Stream s, const std::string& what) {
    auto* log = static_cast<StreamLog*>(s);
    if (in_group)
      held.emplace_back(log, what);
    else
      log->push_back(what);
  }
};

// The all-reduce half: one collective per op.
class FakeAllReduce final : public Variant {
 public:
  explicit FakeAllReduce(FakeNccl& nccl) : nccl_(nccl) {}
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case&, Fabric&, const OpBuffers&, const Tuning&) override {}
  void launch(int, Stream s) override { nccl_.collective(s, "allreduce"); }

 private:
  FakeNccl& nccl_;
};

// unfused-nccl's host half (FusedVariant) with the fake all-reduce and a norm that logs itself.
class LoggedUnfused final : public FusedVariant {
 public:
  explicit LoggedUnfused(FakeNccl& nccl) : FusedVariant(FusedAlgo::unfused_nccl, FusedOptions{algo::kEpochStart, false}), nccl_(nccl) {}

 protected:
  std::unique_ptr<Variant> make_allreduce() const override { return std::make_unique<FakeAllReduce>(nccl_); }
  int device_sm_count(const Fabric&) const override { return 4; }
  int norm_blocks(int tokens) const override { return tokens; }
  int threads() const override { return 1; }
  void run_norm(int, const algo::NormArgs&, int, Stream s) override { static_cast<StreamLog*>(s)->push_back("norm"); }
  void run_fused(const algo::FusedArgs&, int, Stream) override {}

 private:
  FakeNccl& nccl_;
};

TEST(TwoPhaseLaunch, UnfusedNcclNormRunsAfterItsAllReduce) {
  constexpr int kWorld = 4;
  HostFabric fabric(kWorld);  // only for prepare's buffers
  Case c;
  c.variant = "unfused-nccl";
  c.family = Family::allreduce_rmsnorm;
  c.world = kWorld;
  c.tokens = 2;
  c.hidden = 64;
  c.bytes = 2 * 64 * dtype_size(c.dtype);
  FakeNccl nccl;
  LoggedUnfused v(nccl);
  auto work = make_rmsnorm_workload(c, fabric, v.buffer_placement(), 1, 1e-6);
  v.prepare(c, fabric, work->buffers(), Tuning{});

  std::vector<StreamLog> logs(kWorld);
  for (int op = 0; op < 2; ++op)
    enqueue_two_phase(
        op_of(v), 0, kWorld, [&](int r) { return static_cast<Stream>(&logs[r]); }, [&] { nccl.group_start(); },
        [&] { nccl.group_end(); });
  for (int r = 0; r < kWorld; ++r)
    EXPECT_EQ(logs[r], (StreamLog{"allreduce", "norm", "allreduce", "norm"}))
        << "rank " << r << ": the norm must read this op's sum, not the previous op's";
}

TEST(TwoPhaseLaunch, OneRanksLaunchesAllComeBeforeAnyAfter) {
  std::vector<std::string> order;
  const RankOp op([&](int r, Stream) { order.push_back("launch " + std::to_string(r)); },
                  [&](int r, Stream) { order.push_back("after " + std::to_string(r)); });
  enqueue_two_phase(
      op, 0, 2, [](int) { return Stream{}; }, [&] { order.push_back("group start"); }, [&] { order.push_back("group end"); });
  EXPECT_EQ(order, (std::vector<std::string>{"group start", "launch 0", "launch 1", "group end", "after 0", "after 1"}));
}

TEST(TwoPhaseLaunch, OneProcessOfSeveralEnqueuesItsOwnRanksOnly) {
  std::vector<std::string> order;
  const RankOp op([&](int r, Stream) { order.push_back("launch " + std::to_string(r)); },
                  [&](int r, Stream) { order.push_back("after " + std::to_string(r)); });
  enqueue_two_phase(op, 3, 1, [](int) { return Stream{}; }, [] {}, [] {});
  EXPECT_EQ(order, (std::vector<std::string>{"launch 3", "after 3"}));
}

// A fake NCCL API with NCCL's group bookkeeping: the depth of ncclGroupStart per thread, calls
// made inside a group held until the outermost ncclGroupEnd, a group marked failed (abandon_group
// in nccl_api.hpp: a call NCCL rejects) running none of them. NcclFabric's begin/end/abandon are
// GroupStart, GroupEnd and abandon_group + GroupEnd.
struct FakeNcclApi {
  int depth = 0;
  bool failed = false;
  std::vector<std::string> held, ran;
  void GroupStart() { ++depth; }
  void GroupEnd() {
    if (depth == 0) return;
    if (--depth > 0) return;
    if (!failed) ran.insert(ran.end(), held.begin(), held.end());
    held.clear();
    failed = false;
  }
  void AllReduce(const std::string& what) { (depth > 0 ? held : ran).push_back(what); }
  void abandon() { failed = true; }
};

void enqueue_on(FakeNcclApi& api, const RankOp& op, int world) {
  enqueue_two_phase(
      op, 0, world, [](int) { return Stream{}; }, [&] { api.GroupStart(); }, [&] { api.GroupEnd(); },
      [&] {
        api.abandon();
        api.GroupEnd();
      });
}

// A launch that throws inside the group: the group is closed (depth back to 0) without running
// the calls of the ranks that went in, and the next op's collectives run at its own group end.
// Before the guard, the group stayed open: every later NCCL call went into it and "finished" at
// once without running (floor-level latencies).
TEST(TwoPhaseLaunch, AThrowingLaunchClosesTheNcclGroup) {
  FakeNcclApi api;
  const RankOp failing([&](int r, Stream) {
    if (r == 2) throw CaseError("rank 2's launch failed");
    api.AllReduce("op1 rank " + std::to_string(r));
  });
  EXPECT_THROW(enqueue_on(api, failing, 4), CaseError);
  EXPECT_EQ(api.depth, 0) << "the group of the failed op is still open";
  EXPECT_TRUE(api.ran.empty()) << "ranks 0 and 1 ran their half of a collective: " << api.ran.front();
  const RankOp next([&](int r, Stream) { api.AllReduce("op2 rank " + std::to_string(r)); });
  enqueue_on(api, next, 2);
  EXPECT_EQ(api.depth, 0);
  EXPECT_EQ(api.ran, (std::vector<std::string>{"op2 rank 0", "op2 rank 1"})) << "the next op did not run";
}

TEST(TwoPhaseLaunch, AThrowingAfterPhaseLeavesNoGroupOpen) {
  FakeNcclApi api;
  const RankOp op([&](int r, Stream) { api.AllReduce("rank " + std::to_string(r)); },
                  [&](int, Stream) { throw CaseError("the norm kernel failed to launch"); });
  EXPECT_THROW(enqueue_on(api, op, 2), CaseError);
  EXPECT_EQ(api.depth, 0);
  EXPECT_EQ(api.ran.size(), 2u) << "the collectives had every rank: they run";
}

TEST(TwoPhaseLaunch, HostFabricRunsBothPhasesOfEveryRank) {
  HostFabric f(3);
  std::vector<std::vector<std::string>> seen(3);
  f.run(RankOp([&](int r, Stream) { seen[r].push_back("launch"); }, [&](int r, Stream) { seen[r].push_back("after"); }));
  for (const auto& s : seen) EXPECT_EQ(s, (std::vector<std::string>{"launch", "after"}));
}

}  // namespace
}  // namespace arbench
