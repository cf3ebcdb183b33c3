// Fp8Variant: the host-side half of oneshot-fp8 and twoshot-fp8 on every fabric (twin and kernel
// alike). It is SymmVariant (support, scratch, epochs, error records) with the FP8 payload's
// staging size (include/arbench/algo/fp8/fp8_payload.hpp) and the lossy check's model: one
// quantization for one-shot, two for two-shot (docs/variants.md, "FP8 on the wire").
#pragma once

#include <string>

#include "arbench/algo/fp8/fp8_payload.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "kernels/symm/symm_variant.hpp"

namespace arbench {

enum class Fp8Algo { oneshot, twoshot };

// What each moves between ranks: its protocol's, with FP8 codes and scales on the wire
// (fp8_traffic.cpp; arbench/traffic.hpp).
Traffic oneshot_fp8_traffic(const TrafficQuery& q);
Traffic twoshot_fp8_traffic(const TrafficQuery& q);

// By Fp8Algo.
inline constexpr VariantText kFp8Text[] = {
    {"oneshot-fp8", Family::allreduce,
     "oneshot-pull with FP8 e4m3 on the wire (a power-of-two scale per 32 elements), fp32 sums; lossy: "
     "checked against a derived error bound",
     &oneshot_fp8_traffic},
    {"twoshot-fp8", Family::allreduce,
     "twoshot with FP8 e4m3 on the wire, quantized for the reduce-scatter and again for the all-gather; "
     "lossy: checked against a derived error bound",
     &twoshot_fp8_traffic},
};

inline SymmAlgo fp8_protocol(Fp8Algo a) { return a == Fp8Algo::oneshot ? SymmAlgo::oneshot_pull : SymmAlgo::twoshot; }

class Fp8Variant : public SymmVariant {
 public:
  Fp8Variant(Fp8Algo algo, SymmOptions opt) : SymmVariant(fp8_protocol(algo), opt), fp8_(algo) {}

  // In place is not offered: ops that re-reduce their own lossy output have no fixed exact sum to
  // be checked against (the exact variants use zero-sum inputs for that; rounding residues would
  // grow N-fold per op here).
  Support supports(const Case& c, const Fabric& f) const override {
    if (c.in_place) return Support::no(std::string(label()) + " runs out of place only (its check needs a fixed exact sum)");
    return SymmVariant::supports(c, f);
  }

  bool lossy() const override { return true; }
  int wire_quantizations() const override { return fp8_ == Fp8Algo::oneshot ? 1 : 2; }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    auto s = SymmVariant::settings();
    s.emplace_back("fp8_block_elems", std::to_string(algo::kFp8BlockElems));
    s.emplace_back("fp8_format", "e4m3, E8M0 (power-of-two) scale per block");
    return s;
  }

 protected:
  std::size_t slot_packs(std::size_t n, DType /*t*/) const override { return algo::fp8_slot_packs(n); }
  const char* label() const override { return text_of(kFp8Text, fp8_).name; }
  // The grid of a message (Fp8LaunchPolicy): its FP8 units, and its packs in the input dtype (never
  // fewer blocks than oneshot-pull's grid for them).
  int grid_for(int sms, int ranks_per_device, int requested, std::size_t /*packs*/) const override {
    return algo::Fp8LaunchPolicy::blocks(algo::fp8_units(elements()), algo::pack_count(elements(), dtype_), sms,
                                         ranks_per_device, requested);
  }

  Fp8Algo fp8_;
};

}  // namespace arbench
