// oneshot-fp8 and twoshot-fp8 (kernels: kernels/fp8/*.cu; twins: kernels/fp8/fp8_twins.hpp):
// the oneshot-pull and twoshot protocols, unchanged, with the FP8 payload (fp8_payload.hpp).
// Only what a staging item holds differs; the flags, epochs, slots and barriers are the exact
// variants' (the model check, tests/model, and the mutation score, tests/mutation, run these
// kernels too).
//   oneshot-fp8: each rank quantizes its input once; every rank pulls all peers' quantized units,
//                dequantizes and sums them in rank order in fp32, rounds to the output dtype.
//   twoshot-fp8: quantization 1: each rank's input, for the reduce-scatter; quantization 2: the
//                owner's fp32 sum of its 1/N, for the all-gather (the owner outputs the
//                dequantized requantized sum, so all ranks agree bitwise).
#pragma once

#include "arbench/algo/fp8/fp8_payload.hpp"
#include "arbench/algo/symm/oneshot_pull.hpp"
#include "arbench/algo/symm/twoshot.hpp"

namespace arbench::algo {

template <class Mem, DType D>
ARB_HD bool oneshot_fp8_block(const SymmArgs& a, const BlockCtx& c) {
  return oneshot_pull_block<Mem, D, Fp8Payload<D>>(a, c);
}

template <class Mem, DType D>
ARB_HD bool twoshot_fp8_block(const SymmArgs& a, const BlockCtx& c) {
  return twoshot_block<Mem, D, Fp8Payload<D>>(a, c);
}

}  // namespace arbench::algo
