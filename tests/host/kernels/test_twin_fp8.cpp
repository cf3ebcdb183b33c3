// oneshot-fp8 and twoshot-fp8 on the host twins (docs/variants.md, "FP8 on the wire"): outputs
// bitwise equal to a host model of the same arithmetic, every rank alike; within the derived
// error bound of the exact sum on four input distributions at 2/4/8 ranks for every dtype; the
// planted faults of the payload (a doubled scale, a dropped scale, an ignored amax) each break
// the bound; non-finite inputs give NaN; blocks at the top of fp32's range decode finite; the
// oracle's inputs survive the FP8 round trip exactly up to 4 ranks (what the mutation score's
// bitwise check of these twins relies on). Also built into the TSan binary.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "arbench/core/oracle.hpp"
#include "kernels/mem_host.hpp"
#include "tests/host/kernels/fp8_twin_harness.hpp"

namespace arbench::testing {
namespace {

using algo::Fp8Inputs;

std::size_t fp8_elems(std::size_t full) { return kTsan ? 300 : full; }  // with a tail either way

std::string fp8_param_name(const ::testing::TestParamInfo<std::tuple<Fp8Algo, DType, int>>& info) {
  return std::string(std::get<0>(info.param) == Fp8Algo::oneshot ? "oneshot" : "twoshot") + "_" +
         std::string(dtype_name(std::get<1>(info.param))) + "_world" + std::to_string(std::get<2>(info.param));
}

class Fp8Twin : public ::testing::TestWithParam<std::tuple<Fp8Algo, DType, int>> {};

TEST_P(Fp8Twin, BitwiseEqualToTheModelAndWithinTheBoundOnEveryDistribution) {
  const auto [algo, t, world] = GetParam();
  HostFabric fabric(world);
  for (int k = 0; k < algo::kFp8InputKinds; ++k) {
    const auto kind = static_cast<Fp8Inputs>(k);
    SCOPED_TRACE(std::string(fp8_name(algo)) + " " + std::string(dtype_name(t)) + " world " + std::to_string(world) + " " +
                 algo::fp8_inputs_name(kind));
    const RankValues in = fp8_inputs(77u + std::uint64_t(k), world, fp8_elems(128 * 9 + 37), t, kind);
    auto v = make_fp8_twin(algo);
    const auto out = run_fp8_op(fabric, *v, fp8_name(algo), t, in);
    const auto want = fp8_model(in, t, fp8_quantizations(algo));
    const auto ref = algo::fp8_reference(in, t, fp8_quantizations(algo));
    for (int r = 0; r < world; ++r) {
      EXPECT_EQ(out[std::size_t(r)], want) << "rank " << r << " differs from the model";
      double worst = 0;
      EXPECT_EQ(fp8_outside_bound(out[std::size_t(r)], t, ref, &worst), 0u) << "rank " << r << " worst/bound " << worst;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDtypesAndWorlds, Fp8Twin,
                         ::testing::Combine(::testing::Values(Fp8Algo::oneshot, Fp8Algo::twoshot),
                                            ::testing::Values(DType::bf16, DType::fp16, DType::fp32),
                                            ::testing::Values(2, 4, 8)),
                         fp8_param_name);

TEST(Fp8TwinShapes, SmallAndOddSizesAndBlockFaithfulGrid) {
  for (Fp8Algo algo : {Fp8Algo::oneshot, Fp8Algo::twoshot})
    for (std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(129), std::size_t(4 * 128 * 3 + 5)})
      for (int threads : {0, 4}) {
        SCOPED_TRACE(std::string(fp8_name(algo)) + " n " + std::to_string(n) + " threads " + std::to_string(threads));
        HostFabric fabric(3);
        const RankValues in = fp8_inputs(5u, 3, n, DType::bf16, Fp8Inputs::normal);
        auto v = make_fp8_twin(algo);
        const auto out = run_fp8_op(fabric, *v, fp8_name(algo), DType::bf16, in, threads);
        const auto want = fp8_model(in, DType::bf16, fp8_quantizations(algo));
        for (const auto& o : out) EXPECT_EQ(o, want);
      }
}

// The mutation score checks the FP8 twins bitwise against the oracle (twin_points.hpp, fp8_run):
// sound because the FP8 round trip of the oracle's inputs is exact up to 4 ranks. Every integer x
// with |x| <= amax <= 16 has at most 4 significant bits, and at the scale of amax (amax / s in
// (224, 448]) x / s is 0 or a normal e4m3 number (>= 14): so the inputs (in [-4, 4]) survive the
// first quantization and their sums over up to 4 ranks (in [-16, 16]) the second. At 8 ranks a
// sum such as 17 needs 5 bits, and twoshot-fp8 rounds it.
TEST(Fp8OracleInputs, RoundTripExactlyUpToFourRanks) {
  for (int amax = 1; amax <= 16; ++amax) {
    const int k = algo::fp8_scale_exp(float(amax));
    for (int x = -amax; x <= amax; ++x)
      EXPECT_EQ(algo::e4m3_decode(algo::e4m3_encode(float(x) * algo::pow2f(-k))) * algo::pow2f(k), float(x))
          << "x " << x << " at the scale of amax " << amax;
  }
  const std::size_t n = 128 * 9 + 37;
  auto oracle_inputs = [&](std::uint64_t seed, int world) {
    RankValues in(static_cast<std::size_t>(world), std::vector<float>(n));
    for (int r = 0; r < world; ++r)
      for (std::size_t i = 0; i < n; ++i) in[std::size_t(r)][i] = float(oracle_value(seed, r, i));
    return in;
  };
  for (int world : {2, 3, 4})
    for (std::uint64_t seed : {1000u, 1001u, 1002u})
      for (int q : {1, 2})
        EXPECT_EQ(fp8_model(oracle_inputs(seed, world), DType::bf16, q), oracle_sum(DType::bf16, n, seed, world))
            << "world " << world << " seed " << seed << " quantizations " << q;
  EXPECT_EQ(fp8_model(oracle_inputs(1000u, 8), DType::bf16, 1), oracle_sum(DType::bf16, n, 1000u, 8));
  EXPECT_NE(fp8_model(oracle_inputs(1000u, 8), DType::bf16, 2), oracle_sum(DType::bf16, n, 1000u, 8));
}

TEST(Fp8TwinNonFinite, NanOrInfInputGivesNanThereAndLeavesTheBlockAlone) {
  for (Fp8Algo algo : {Fp8Algo::oneshot, Fp8Algo::twoshot}) {
    HostFabric fabric(4);
    RankValues in = fp8_inputs(9u, 4, 256, DType::fp32, Fp8Inputs::normal);
    in[1][5] = std::numeric_limits<float>::quiet_NaN();
    in[2][40] = std::numeric_limits<float>::infinity();
    in[3][41] = -std::numeric_limits<float>::infinity();
    auto v = make_fp8_twin(algo);
    const auto out = run_fp8_op(fabric, *v, fp8_name(algo), DType::fp32, in);
    RankValues clean = in;
    clean[1][5] = clean[2][40] = clean[3][41] = 0.0f;
    const auto ref = algo::fp8_reference(clean, DType::fp32, fp8_quantizations(algo));
    for (const auto& o : out) {
      for (std::size_t i = 0; i < 256; ++i) {
        const float y = load_as_f32(o.data(), i, DType::fp32);
        const bool bad_input = i == 5 || i == 40 || i == 41;
        if (bad_input) {
          EXPECT_TRUE(std::isnan(y)) << fp8_name(algo) << " element " << i << " = " << y;
        } else {  // the rest of the block as if the element were 0 (it sets no scale)
          EXPECT_LE(std::fabs(double(y) - ref.exact[i]), ref.bound[i]) << fp8_name(algo) << " element " << i;
        }
      }
    }
  }
}

// Sums below bf16's smallest normal (2^-126), where the output rounding is bounded by its
// absolute term 2^-134 (fp8_bound.hpp): inputs of that size, some blocks of them alone and some
// beside a block-mate 2^20 times larger (whose scale then drops the small ones to few bits).
TEST(Fp8TwinTiny, SumsBelowBf16sSmallestNormalStayInTheBoundAndMatchTheModel) {
  for (Fp8Algo algo : {Fp8Algo::oneshot, Fp8Algo::twoshot})
    for (int world : {2, 4}) {
      HostFabric fabric(world);
      RankValues in = fp8_inputs(21u, world, 200, DType::bf16, Fp8Inputs::normal);
      for (auto& r : in)
        for (std::size_t i = 0; i < r.size(); ++i) {
          const float tiny = std::ldexp(r[i], i % 64 < 32 ? -131 : -128);
          r[i] = bf16_to_f32(f32_to_bf16(i % 32 == 7 && i >= 64 ? std::ldexp(tiny, 20) : tiny));
        }
      auto v = make_fp8_twin(algo);
      const auto out = run_fp8_op(fabric, *v, fp8_name(algo), DType::bf16, in);
      const auto want = fp8_model(in, DType::bf16, fp8_quantizations(algo));
      const auto ref = algo::fp8_reference(in, DType::bf16, fp8_quantizations(algo));
      std::size_t tiny_sums = 0;
      for (double x : ref.exact) tiny_sums += std::fabs(x) < std::ldexp(1.0, -126);
      EXPECT_GT(tiny_sums, 100u);
      for (int r = 0; r < world; ++r) {
        EXPECT_EQ(out[std::size_t(r)], want) << fp8_name(algo) << " world " << world << " rank " << r;
        EXPECT_EQ(fp8_outside_bound(out[std::size_t(r)], DType::bf16, ref), 0u) << fp8_name(algo) << " world " << world;
      }
    }
}

// The top of fp32's range (e4m3.hpp, the block scale): a rank's block whose largest value is bf16's
// largest finite value, FLT_MAX or 1.9375 * 2^127 decodes finite, and the outputs are finite, equal
// to the model and within the bound (fp8_bound.hpp, whose saturation term covers these blocks).
// Under "the smallest k with amax <= 448 * 2^k" alone, those blocks get 2^120 and decode as +inf.
struct TopCase {
  DType t;
  float big;
  const char* what;
};

TEST(Fp8TwinTop, TheLargestFiniteInputsGiveFiniteOutputsWithinTheBound) {
  const TopCase cases[] = {{DType::bf16, bf16_to_f32(0x7f7f), "bf16 max"},
                           {DType::fp32, std::numeric_limits<float>::max(), "fp32 max"},
                           {DType::fp32, std::ldexp(1.9375f, 127), "1.9375 * 2^127"},
                           {DType::bf16, std::ldexp(1.9375f, 127), "1.9375 * 2^127 (bf16)"}};
  for (Fp8Algo algo : {Fp8Algo::oneshot, Fp8Algo::twoshot})
    for (const TopCase& tc : cases)
      for (int world : {2, 4}) {
        SCOPED_TRACE(std::string(fp8_name(algo)) + " " + tc.what + " world " + std::to_string(world));
        HostFabric fabric(world);
        RankValues in = fp8_inputs(31u, world, 100, tc.t, algo::Fp8Inputs::normal);
        // One rank holds the big value in each of three blocks (the last a tail), the others 0
        // there: every exact sum stays an fp32 number.
        const std::size_t at[] = {3, 40, 97};
        for (std::size_t j = 0; j < 3; ++j) {
          for (auto& r : in) r[at[j]] = 0.0f;
          in[j % std::size_t(world)][at[j]] = j == 1 ? -tc.big : tc.big;
        }
        auto v = make_fp8_twin(algo);
        const auto out = run_fp8_op(fabric, *v, fp8_name(algo), tc.t, in);
        const auto want = fp8_model(in, tc.t, fp8_quantizations(algo));
        const auto ref = algo::fp8_reference(in, tc.t, fp8_quantizations(algo));
        for (int r = 0; r < world; ++r) {
          const auto& o = out[std::size_t(r)];
          for (std::size_t i : at)
            EXPECT_TRUE(std::isfinite(load_as_f32(o.data(), i, tc.t)))
                << "rank " << r << " element " << i << " = " << load_as_f32(o.data(), i, tc.t);
          EXPECT_EQ(o, want) << "rank " << r << " differs from the model";
          double worst = 0;
          EXPECT_EQ(fp8_outside_bound(o, tc.t, ref, &worst), 0u) << "rank " << r << " worst/bound " << worst;
        }
      }
}

// The planted faults (include/arbench/algo/faults.hpp): the twin with a mutant memory policy
// that names the fault; each must put elements outside the bound on these inputs.
template <algo::Fault F>
struct FaultyMem : HostMem {
  static constexpr algo::Fault kFault = F;
};

template <algo::Fault F>
std::size_t outside_with_fault(Fp8Algo algo, Fp8Inputs kind) {
  HostFabric fabric(4);
  const RankValues in = fp8_inputs(11u, 4, 1024, DType::bf16, kind);
  auto v = make_twin_with<FaultyMem<F>>(algo);
  const auto out = run_fp8_op(fabric, *v, fp8_name(algo), DType::bf16, in);
  const auto ref = algo::fp8_reference(in, DType::bf16, fp8_quantizations(algo));
  std::size_t bad = 0;
  for (const auto& o : out) bad += fp8_outside_bound(o, DType::bf16, ref);
  return bad;
}

TEST(Fp8PlantedFaults, ScaleTimesTwoBreaksTheBound) {
  for (Fp8Algo a : {Fp8Algo::oneshot, Fp8Algo::twoshot})
    EXPECT_GT((outside_with_fault<algo::Fault::fp8_scale_doubled>(a, Fp8Inputs::normal)), 0u) << fp8_name(a);
}

TEST(Fp8PlantedFaults, DroppedBlockScaleBreaksTheBound) {
  for (Fp8Algo a : {Fp8Algo::oneshot, Fp8Algo::twoshot})
    EXPECT_GT((outside_with_fault<algo::Fault::fp8_scale_dropped>(a, Fp8Inputs::normal)), 0u) << fp8_name(a);
}

TEST(Fp8PlantedFaults, QuantizationIgnoringTheAmaxBreaksTheBound) {
  // The scale of the block's first element: larger elements saturate at 448 times it.
  for (Fp8Algo a : {Fp8Algo::oneshot, Fp8Algo::twoshot}) {
    EXPECT_GT((outside_with_fault<algo::Fault::fp8_amax_ignored>(a, Fp8Inputs::normal)), 0u) << fp8_name(a);
    EXPECT_GT((outside_with_fault<algo::Fault::fp8_amax_ignored>(a, Fp8Inputs::block_outlier)), 0u) << fp8_name(a);
  }
}

TEST(Fp8PlantedFaults, NoFaultStaysInsideTheBoundOnTheSameInputs) {
  for (Fp8Algo a : {Fp8Algo::oneshot, Fp8Algo::twoshot})
    for (Fp8Inputs k : {Fp8Inputs::normal, Fp8Inputs::wide_range, Fp8Inputs::block_outlier})
      EXPECT_EQ((outside_with_fault<algo::Fault::none>(a, k)), 0u) << fp8_name(a);
}

}  // namespace
}  // namespace arbench::testing
