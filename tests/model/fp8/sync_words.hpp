// The payload change does not change what the model checks: at a configuration, the FP8 world
// (symm_model.hpp) registers the same flag and epoch-counter words as the world of the exact
// kernel whose protocol it runs. SameSyncWords builds both worlds (one Relacy iteration, no
// protocol thread) and compares, per kind, the words' (rank, offset from the rank's scratch or
// epoch state): the same count, the same offsets. Only the staging packs differ.
#pragma once

#include "tests/model/model_case.hpp"
#include "tests/model/symm_model.hpp"

namespace arbench::model {

// A registered word: its kind, its rank, its offset in the rank's flag area or epoch state.
struct SyncWord {
  int kind = 0, rank = -1;
  std::ptrdiff_t offset = 0;
  auto operator<=>(const SyncWord&) const = default;
};
inline constexpr int kMaxSyncWords = 256;

// w's flag and epoch-counter words, sorted; returns their count (a word outside every rank's
// flags or state gets rank -1, which no other world's word equals).
template <class World>
int sync_words(const World& w, SyncWord (&out)[kMaxSyncWords]) {
  int n = 0;
  for (const ShadowIndex::Kind k : {ShadowIndex::kFlag, ShadowIndex::kCounter})
    w.index.each(k, [&](const void* addr) {
      const auto* a = static_cast<const char*>(addr);
      SyncWord s{static_cast<int>(k)};
      for (int r = 0; r < World::kWorld; ++r) {
        const char* base = k == ShadowIndex::kFlag ? static_cast<const char*>(w.ranks[r].scratch)
                                                   : reinterpret_cast<const char*>(&w.ranks[r].state);
        const std::size_t size = k == ShadowIndex::kFlag ? algo::kDataOffset : sizeof(algo::RankState);
        if (a >= base && a < base + size) s = SyncWord{static_cast<int>(k), r, a - base};
      }
      if (n < kMaxSyncWords) out[n++] = s;
    });
  std::sort(out, out + n);
  return n;
}

// ExactBlocks != Blocks: the check's planted fault (fp8/mutants_fp8.cpp), an exact world of
// another grid, whose words it must tell apart.
template <TwinKernel Fp8, int World, int Blocks, int Threads, int ExactBlocks = Blocks>
struct SameSyncWords : rl::test_suite<SameSyncWords<Fp8, World, Blocks, Threads, ExactBlocks>, 1> {
  static constexpr TwinKernel kKernel = Fp8, kExact = testing::protocol_kernel(Fp8);
  static constexpr int kWorld = World, kBlocks = Blocks, kThreads = Threads;
  // What the symmetric layout holds (symm_layout.hpp): a flag per phase, block, receiver and
  // sender; an epoch counter per rank and block.
  static constexpr int kFlags = algo::kFlagPhases * Blocks * World * World, kCounters = World * Blocks;
  SymmWorld<kExact, World, ExactBlocks, Threads, false> exact;
  SymmWorld<Fp8, World, Blocks, Threads, false> fp8;

  void thread(unsigned) {}
  void after() {
    SyncWord a[kMaxSyncWords], b[kMaxSyncWords];
    const int na = sync_words(exact, a), nb = sync_words(fp8, b);
    bool same = na == nb && na == kFlags + kCounters && na < kMaxSyncWords;
    for (int i = 0; same && i < na; ++i) same = a[i] == b[i] && a[i].rank >= 0;
    MODEL_CHECK(same, "the FP8 world registers other flag/epoch words than the exact one");
  }
};

// The comparison at one configuration, as a case of Fp8's list ("... sync words ...").
template <TwinKernel Fp8, int W, int B, int T>
ModelCase same_sync_case(const ModelConfig& cfg) {
  using Test = SameSyncWords<Fp8, W, B, T>;
  ModelCase c = random_case<Test>(cfg, 1);
  c.point += " sync words: " + std::to_string(Test::kFlags) + " flag + " + std::to_string(Test::kCounters) +
             " epoch = " + testing::twin_kernel_name(testing::protocol_kernel(Fp8)) + "'s";
  return c;
}

}  // namespace arbench::model
