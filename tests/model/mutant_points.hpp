// One mutant on a list of the W2 kernels (symmetric, ring, fused) at one grid shape, for the
// mutant lists (mutants_score_a.cpp, mutants_score_b.cpp, mutants_weak.cpp): each kernel gets
// its family's configuration (symm, ring, fused rows) and its family's test object.
#pragma once

#include "tests/model/fused_model.hpp"
#include "tests/model/model_case.hpp"
#include "tests/model/ring_model.hpp"
#include "tests/model/symm_model.hpp"

namespace arbench::model {

// The configuration of one mutant point per family.
struct FamilyConfigs {
  ModelConfig symm, ring, fused;
};

// mutant_case (name == nullptr: the score's mutant of Mem's fault) of Mem on kernel Kern at W2,
// Blocks x Threads.
template <class Mem, TwinKernel Kern, int Blocks, int Threads>
ModelCase mutant_point(const FamilyConfigs& cfg, const char* name) {
  if constexpr (Kern == TwinKernel::ring) return mutant_case<RingTest<Mem, 2, Blocks, Threads>>(cfg.ring, name);
  else if constexpr (Kern == TwinKernel::add_rmsnorm || Kern == TwinKernel::fused_oneshot ||
                     Kern == TwinKernel::fused_twoshot)
    return mutant_case<FusedTest<Mem, Kern, 2, Blocks, Threads>>(cfg.fused, name);
  else return mutant_case<SymmTest<Mem, Kern, 2, Blocks, Threads>>(cfg.symm, name);
}

// The mutant on every kernel of Kerns, in that order.
template <class Mem, int Blocks, int Threads, TwinKernel... Kerns>
void mutant_points(std::vector<ModelCase>& out, const FamilyConfigs& cfg, const char* name = nullptr) {
  (out.push_back(mutant_point<Mem, Kerns, Blocks, Threads>(cfg, name)), ...);
}

}  // namespace arbench::model
