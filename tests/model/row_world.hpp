// The worlds of the all-reduce + residual add + RMSNorm kernels (fused_model.hpp,
// island/island_model.hpp), on the shared driver (grid_world.hpp): `tokens` rows of
// `hidden` elements per op; every rank's x, its sum (the unfused add_rmsnorm's all-reduce
// output), norm_out and residual_out, and its blocks' norm lanes (real block-shared floats: the
// lane tree's missing barrier shows as a wrong sum, not a race). after(): every op's norm_out and
// residual_out bitwise equal to the expectation, computed before the threads start by the same
// row math (add_norm_row) on the exact sums.
#pragma once

#include "tests/model/grid_world.hpp"

namespace arbench::model {

// The policy of the expectation: one thread, nothing to order.
struct SeqMem {
  static void block_sync() {}
  static void store_data(Pack* p, const Pack& v) { *p = v; }
};

template <class Derived, TwinKernel Kern, int World, int Blocks, int Threads>
struct RowWorld : GridWorld<Derived, Kern, World, Blocks, Threads> {
  static constexpr int kMaxTokens = 3, kMaxHidden = 27;
  // A row buffer holds whole packs (16-byte multiples), so the arrays of them stay aligned.
  static constexpr std::size_t kMaxElems = (kMaxTokens * kMaxHidden + 7) / 8 * 8;
  static constexpr std::size_t kMaxPacks = kMaxTokens * 4;  // row_packs(27, bf16) = 4
  using Row = std::uint16_t[kMaxElems];                       // bf16

  struct Rank {
    void* scratch;  // guarded_scratch
    void* mailbox;  // island kernels: the mailbox, inside scratch
    algo::RankState state;
    alignas(16) Row x[kMaxOps], sum[kMaxOps], norm_out[kMaxOps], residual_out[kMaxOps];
    float lanes[Blocks][algo::kNormLanes];  // block-shared memory
  };

  std::size_t rp = 0;  // packs per row; packs (staged): tokens x rp, row-padded
  alignas(16) Row residual, weight, want_y[kMaxOps], want_r[kMaxOps];
  Rank ranks[World];

  RowWorld() {
    const ModelConfig& c = this->cfg;
    const std::size_t elems = this->n = static_cast<std::size_t>(c.tokens) * static_cast<std::size_t>(c.hidden);
    rp = algo::row_packs(c.hidden, kD);
    this->packs = static_cast<std::size_t>(c.tokens) * rp;
    RL_ASSERT(c.tokens <= kMaxTokens && c.hidden <= kMaxHidden && c.ops <= kMaxOps);
    std::memset(static_cast<void*>(ranks), 0, sizeof ranks);
    for (std::size_t i = 0; i < elems; ++i) {
      store_from_f32(residual, i, kD, static_cast<float>(static_cast<int>(i % 3) - 1));
      store_from_f32(weight, i % static_cast<std::size_t>(c.hidden), kD, 1.0f + 0.25f * static_cast<float>(i % 4));
    }
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < c.ops; ++op) {
        for (std::size_t i = 0; i < elems; ++i) store_from_f32(ranks[r].x[op], i, kD, input_value(r, op, i));
        std::memset(ranks[r].norm_out[op], kPoison, sizeof(Row));
        std::memset(ranks[r].residual_out[op], kPoison, sizeof(Row));
        std::memset(ranks[r].sum[op], kPoison, sizeof(Row));
      }
    expect();
  }

  // Every op's outputs from the exact sums, single-threaded (the lane tree's shape is fixed, so
  // any thread count gives the same bits).
  void expect() {
    for (int op = 0; op < this->cfg.ops; ++op) {
      alignas(16) Row s;
      for (std::size_t i = 0; i < this->n; ++i) store_from_f32(s, i, kD, oracle_sum(World, op, i));
      algo::NormIo io = norm_io(want_r[op], want_y[op]);
      float lanes[algo::kNormLanes];
      for (int row = 0; row < this->cfg.tokens; ++row)
        algo::add_norm_row<SeqMem, kD>(io, static_cast<std::size_t>(row), algo::BlockCtx{}, lanes, [&](std::size_t k) {
          return algo::load_row_pack<kD>(s, this->cfg.hidden, static_cast<std::size_t>(row), k);
        });
    }
  }
  algo::NormIo norm_io(void* r_out, void* y_out) const {
    algo::NormIo io;
    io.residual = residual;
    io.weight = weight;
    io.norm_out = y_out;
    io.residual_out = r_out;
    io.hidden = this->cfg.hidden;
    return io;
  }
  algo::NormIo norm_io(int r, int op) { return norm_io(ranks[r].residual_out[op], ranks[r].norm_out[op]); }

  bool wrote_nothing(int r) const {
    const std::size_t bytes = this->n * dtype_size(kD);
    return untouched(ranks[r].norm_out[0], bytes) && untouched(ranks[r].residual_out[0], bytes);
  }
  void check_op(int r, int op) {
    const std::size_t bytes = this->n * dtype_size(kD);
    MODEL_CHECK(std::memcmp(ranks[r].residual_out[op], want_r[op], bytes) == 0, "residual_out differs from the expectation");
    MODEL_CHECK(std::memcmp(ranks[r].norm_out[op], want_y[op], bytes) == 0, "norm_out differs from the expectation");
  }
};

}  // namespace arbench::model
