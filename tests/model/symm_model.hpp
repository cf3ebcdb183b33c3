// oneshot-pull, oneshot-push and twoshot (include/arbench/algo/symm/), and oneshot-fp8 and
// twoshot-fp8 (the pull and twoshot protocols with the FP8 payload, include/arbench/algo/fp8/),
// under Relacy, on the shared driver (grid_world.hpp: one Relacy thread per (rank, block,
// thread), `ops` ops back to back with kernel boundaries, the oracle check in after()). Shadowed:
// the barrier flags, the staging packs or LL line halves, the per-block epoch counters. With
// Weak::ll_split(_sc) each LL half is two shadow words (data, flag) instead of one.
//
// The FP8 worlds differ from the exact ones only in what a staging item holds: a configuration's
// element count is scaled so each exact pack becomes one FP8 unit (the protocol deals the same
// number of items to blocks and threads), the staging slot holds the units' packs, and the inputs
// are exact in e4m3. The flags and epoch counters are registered by the same code, at the same
// offsets (fp8/cases_fp8.cpp checks it per configuration).
#pragma once

#include "tests/model/grid_world.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {

// The work items a world holds at most (the configurations have at most 19 elements: 3 packs).
inline constexpr std::size_t kSymmMaxItems = 6;
// FP8 worlds: elements per unit over elements per exact pack.
inline constexpr std::size_t kFp8ItemScale = algo::kFp8UnitElems / static_cast<std::size_t>(algo::ElemOps<kD>::kPerPack);
constexpr std::size_t symm_io_packs(TwinKernel k) {
  return testing::is_fp8_kernel(k) ? kSymmMaxItems * kFp8ItemScale : kSymmMaxItems;
}

template <TwinKernel Kern, int World, int Blocks, int Threads, bool Split>
struct SymmWorld final : PackWorld<SymmWorld<Kern, World, Blocks, Threads, Split>, algo::RankState,
                                   symm_io_packs(Kern), Kern, World, Blocks, Threads> {
  using Base = typename SymmWorld::PackWorld;
  using Base::cfg, Base::n, Base::packs, Base::ranks;
  template <class M>
  using For = SymmWorld<Kern, World, Blocks, Threads, splits_ll(M::kWeak)>;
  static constexpr bool kLl = Kern == TwinKernel::oneshot_push;
  static constexpr bool kFp8 = testing::is_fp8_kernel(Kern);
  // FP8: the sums of at most 3 ranks' inputs stay exact (input() below).
  static_assert(!kFp8 || World <= 3);
  static constexpr std::size_t kSlotPacks =
      kFp8 ? algo::kFp8CodePacks * kSymmMaxItems + algo::fp8_scale_packs(kSymmMaxItems) : kSymmMaxItems;
  static constexpr std::size_t kScratchBytes =
      kLl ? algo::ll_scratch_bytes(kSymmMaxItems, World) : algo::staging_scratch_bytes(kSlotPacks);
  static constexpr std::size_t kLlWords =
      kLl ? World * algo::kEpochSlots * World * kSymmMaxItems * algo::kLinesPerPack * 2 : 0;

  // FP8: one unit per exact pack; the slot holds the units' code packs and scale bytes
  // (fp8_payload.hpp), each shadowed on its own (packs, bytes).
  static std::size_t elems_of(const ModelConfig& c) { return kFp8 ? c.elems * kFp8ItemScale : c.elems; }
  static std::size_t staged_packs(std::size_t n) { return kFp8 ? algo::fp8_slot_packs(n) : algo::pack_count(n, kD); }
  // FP8: (1 + (i + rank) % 5) * 2^op, exact through the payload. The sum over up to 3 ranks of
  // integers in 1..5 lies in 1..15: inputs and sums have at most 4 significant bits (times 2^op),
  // which e4m3 holds at any block scale (amax / s lies in (224, 448], so an element of at least
  // amax / 15 is a normal e4m3 number). So both quantizations of twoshot-fp8 are exact and the
  // check stays bitwise; a read of another op's data is off by a factor of 2 in that rank's term.
  static float input(int rank, int op, std::size_t i) {
    if constexpr (kFp8) return static_cast<float>((1 + static_cast<int>((i + static_cast<std::size_t>(rank)) % 5)) << op);
    else return input_value(rank, op, i);
  }

  algo::SymmArgs args[World][kMaxOps];
  FlagCell flags[algo::kFlagPhases * Blocks * World * World];
  std::array<PackVar, kLl ? 0 : World * algo::kEpochSlots * kSlotPacks> staging;
  std::array<ByteVar, kFp8 ? World * algo::kEpochSlots * kSymmMaxItems : 0> scale_bytes;
  std::array<WordCell, Split ? 0 : kLlWords> ll_words;
  std::array<LlHalf, Split ? kLlWords : 0> ll_halves;
  Counter counters[World * Blocks];

  SymmWorld() {
    RL_ASSERT(packs <= kSlotPacks);
    for (int r = 0; r < World; ++r) ranks[r].scratch = guarded_scratch(r, kScratchBytes);
    register_shadows(algo::flag_fill(cfg.start));
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) args[r][op] = this->symm_args(r, ranks[r].in[op], ranks[r].out[op]);
  }

  void register_shadows(std::uint32_t fill) {
    std::size_t nf = 0, ns = 0, nl = 0, nc = 0, nb = 0;
    for (int r = 0; r < World; ++r) {
      void* s = ranks[r].scratch;
      this->add_barrier_flags(flags, nf, s, fill);
      for (int slot = 0; slot < algo::kEpochSlots; ++slot) {
        if constexpr (kFp8) {
          algo::Pack* base = algo::staging_ptr(s, slot, packs);
          const std::size_t units = algo::fp8_units(n);
          this->add_packs(staging.data(), ns, base, algo::kFp8CodePacks * units);
          this->add_bytes(scale_bytes.data(), nb, algo::fp8_scale_byte(base, units, 0), units);
        } else if constexpr (!kLl) {
          this->add_packs(staging.data(), ns, algo::staging_ptr(s, slot, packs), packs);
        } else
          for (int snd = 0; snd < World; ++snd) {
            const LlLine* l = algo::ll_ptr(s, slot, snd, World, packs);
            if constexpr (Split) add_halves(nl, l, packs * algo::kLinesPerPack, fill);
            else this->add_lines(ll_words.data(), nl, l, packs * algo::kLinesPerPack, fill);
          }
      }
      this->add_epoch_counters(counters, nc, ranks[r].state, fill);
    }
  }
  void add_halves(std::size_t& nl, const LlLine* first, std::size_t lines, std::uint32_t fill) {
    const LlLine init = algo::ll_fill(fill);
    for (std::size_t i = 0; i < lines; ++i)
      for (int h = 0; h < 2; ++h) {
        LlHalf& c = ll_halves[nl++];
        c.data($).store(c.latest_data = algo::ll_data(init, h), rl::mo_relaxed);
        c.flag($).store(c.latest_flag = algo::ll_flag(init, h), rl::mo_relaxed);
        this->index.add(&first[i].h[h], ShadowIndex::kLlHalf, &c);
      }
  }

  template <class Mem>
  void launch(const typename Base::Pos& at, int op, int) {
    const algo::SymmArgs& a = args[at.rank][op];
    if constexpr (Kern == TwinKernel::oneshot_pull) algo::oneshot_pull_block<Mem, kD>(a, at.ctx());
    if constexpr (Kern == TwinKernel::oneshot_push) algo::oneshot_push_block<Mem, kD>(a, at.ctx());
    if constexpr (Kern == TwinKernel::twoshot) algo::twoshot_block<Mem, kD>(a, at.ctx());
    if constexpr (Kern == TwinKernel::oneshot_fp8) algo::oneshot_fp8_block<Mem, kD>(a, at.ctx());
    if constexpr (Kern == TwinKernel::twoshot_fp8) algo::twoshot_fp8_block<Mem, kD>(a, at.ctx());
  }
};

template <class M, TwinKernel Kern, int World, int Blocks, int Threads>
using SymmTest = ModelTest<M, SymmWorld<Kern, World, Blocks, Threads, splits_ll(M::kWeak)>>;

// The points of the symmetric kernels' random search: f.template operator()<W, B, T>(config) for
// each. The exact kernels (cases_symm.cpp) and the FP8 ones (fp8/cases_fp8.cpp) run the same.
template <class F>
void each_symm_point(F&& f) {
  const Configs c;
  f.template operator()<2, 1, 1>(c.ops2);
  f.template operator()<2, 1, 2>(c.ops3);
  f.template operator()<3, 1, 1>(c.ops2);
  f.template operator()<2, 2, 1>(c.ops2);
  f.template operator()<2, 1, 2>(c.wrap);
  f.template operator()<2, 1, 2>(c.missing);
}

template <TwinKernel Kern>
void symm_random_points(std::vector<ModelCase>& out, unsigned long it) {
  each_symm_point([&]<int W, int B, int T>(const ModelConfig& cfg) {
    out.push_back(random_case<SymmTest<RelacyMem<>, Kern, W, B, T>>(cfg, it));
  });
}

// The bounded and exhaustive points of the oneshot-pull protocol and of the twoshot one, for
// their exact and FP8 kernels alike (protocol_kernel).
template <TwinKernel Kern>
void symm_bounded_points(std::vector<ModelCase>& out) {
  const Configs c;
  using M = RelacyMem<>;
  if constexpr (testing::protocol_kernel(Kern) == TwinKernel::oneshot_pull) {
    out.push_back(full_case<SymmTest<M, Kern, 2, 1, 1>>(c.ops2));
    out.push_back(bound_case<SymmTest<M, Kern, 2, 1, 2>>(c.ops2, 2));
    out.push_back(bound_case<SymmTest<M, Kern, 2, 1, 2>>(c.ops3, 1));
    out.push_back(bound_case<SymmTest<M, Kern, 3, 1, 1>>(c.ops2, 1));
    out.push_back(bound_case<SymmTest<M, Kern, 2, 2, 1>>(c.ops2, 1));
  } else {
    static_assert(testing::protocol_kernel(Kern) == TwinKernel::twoshot);
    out.push_back(bound_case<SymmTest<M, Kern, 2, 1, 2>>(c.ops2, 1));
    out.push_back(bound_case<SymmTest<M, Kern, 3, 1, 1>>(c.ops2, 1));
  }
}

}  // namespace arbench::model
