// What every modelled kernel shares: the run-time configuration of one model point, the oracle
// inputs, and the base of the test objects (rank/block/thread of a Relacy thread, launches).
//
// A model point = kernel x (ranks W, blocks B, threads T: compile-time, Relacy's thread count is
// a template argument) x ModelConfig (run-time: ops, sizes, first epoch, scenario). The config
// is copied into the test object from g_cfg, set before rl::simulate and constant during it.
#pragma once

#include "tests/model/block_sync.hpp"
#include "tests/model/model_env.hpp"

namespace arbench::model {

using testing::Scenario;
using testing::TwinKernel;

inline constexpr DType kD = DType::bf16;  // 8 elements per pack: tails are easy to make
inline constexpr int kMaxOps = 3;

struct ModelConfig {
  Scenario scenario = Scenario::ops;
  int ops = 2;
  std::size_t elems = 19;  // all-reduce kernels: 8 + 8 + 3 = 3 bf16 packs, the last partial
  std::uint32_t start = algo::kEpochStart;
  std::uint64_t missing_polls = 6;  // missing_rank: the waits' bound, in polls (a logical clock)
  bool park_waits = true;           // Waits: park a poll that saw the newest values
  // ring
  std::size_t chunk_packs = 1;  // 1: several rounds per op, so slots and credits wrap
  bool skip_credit_wait = false;  // the credit test's hook, as a model-only mutant
  // fused family: rows of `hidden` elements (9 = 2 packs, the second partial; 27 = 4 packs, so
  // the norm's lane tree crosses threads with T = 2)
  int tokens = 2;
  int hidden = 9;
  // island family (island/island_model.hpp's island_config): the islands, made outside the run
  algo::IslandMap islands;
  int island_world = 0;
};
inline ModelConfig g_cfg;

// Oracle input: small integers, exact in bf16 and in every sum of them, different for every
// (rank, op), so a stale read of another op's data changes the sum.
inline float input_value(int rank, int op, std::size_t i) {
  return static_cast<float>(1 + static_cast<int>(i % 5) + 5 * rank + 16 * op);
}
using InputFn = float (*)(int rank, int op, std::size_t i);
inline float oracle_sum(int world, int op, std::size_t i, InputFn input = input_value) {
  float want = 0;
  for (int p = 0; p < world; ++p) want += input(p, op, i);
  return want;
}

inline constexpr std::uint8_t kPoison = 0xAB;  // output bytes before an op writes them

inline bool untouched(const void* p, std::size_t bytes) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  for (std::size_t i = 0; i < bytes; ++i)
    if (b[i] != kPoison) return false;
  return true;
}

// Where a Relacy thread sits in the modelled grid: tid = (rank * Blocks + block) * Threads + thread.
template <int World, int Blocks, int Threads>
struct GridPos {
  int rank, block, thread;
  explicit GridPos(int tid) : rank(tid / (Blocks * Threads)), block((tid / Threads) % Blocks), thread(tid % Threads) {}
  algo::BlockCtx ctx() const { return algo::BlockCtx{block, Blocks, thread, Threads}; }
};

// A failed check in after() names the kernel's oracle, not a protocol line.
#define MODEL_CHECK(cond, what) RL_ASSERT_IMPL(cond, rl::test_result_user_assert_failed, what, $)

}  // namespace arbench::model
