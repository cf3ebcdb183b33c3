// The correct island family: the configurations its four kernels must pass (bounds and measured
// costs: tests/model/README.md). Two islands: 2 + 2 ranks (one partner per rank across), 1 + 3
// (the lone rank serves the three of the other island) and 2 + 1 (a rank of the smaller island
// serves two; the other rank of the larger one sends nothing across). The fused forms run the
// rows of cases_fused.cpp (2 rows of 9 elements = 2 packs each, the second partial; 1 row of
// 27 = 4 packs, so the norm's lane tree crosses threads with T = 2; 3 rows with B = 2, so both
// blocks own rows).
#include "tests/model/island/island_model.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {
namespace {

template <TwinKernel Kern, int W, int B, int T>
using I = IslandTest<RelacyMem<>, Kern, W, B, T>;

// Every kernel's random points; lone: the 1 + 3 point's, t2: the T2 point's, b2: the B2 point's
// configuration (the fused forms: rows that reach the second thread or block).
template <TwinKernel Kern>
void island_points(std::vector<ModelCase>& out, unsigned long it, const ModelConfig& lone, const ModelConfig& t2,
                   const ModelConfig& b2) {
  const Configs c;
  out.push_back(random_case<I<Kern, 4, 1, 1>>(island_config(c.ops2, 4, 2), it));
  out.push_back(random_case<I<Kern, 4, 1, 1>>(island_config(lone, 4, 1), it));
  out.push_back(random_case<I<Kern, 3, 1, 1>>(island_config(c.ops3, 3, 2), it));
  out.push_back(random_case<I<Kern, 4, 1, 2>>(island_config(t2, 4, 2), it));
  out.push_back(random_case<I<Kern, 4, 2, 1>>(island_config(b2, 4, 2), it));
  out.push_back(random_case<I<Kern, 3, 1, 2>>(island_config(c.wrap, 3, 2), it));
  out.push_back(random_case<I<Kern, 4, 1, 2>>(island_config(c.missing, 4, 2), it));
}

}  // namespace

void island_cases(std::vector<ModelCase>& out) {
  const Configs c;
  // Every relaxed LL load is a "newest or previous" choice: island-oneshot's bounded search fits
  // only 1 + 1 ranks and one pack (W3 2 + 1 one pack at bound 1: 1.7 M iterations, 122 s).
  island_points<TwinKernel::island_oneshot>(out, 6000, c.ops3, c.ops2, c.ops2);
  out.push_back(bound_case<I<TwinKernel::island_oneshot, 2, 1, 1>>(island_config(c.one_pack, 2, 1), 2));
  // W4 2 + 2 at bound 1: 720 k iterations, 38 s; W3 T2 at bound 1: over 90 s (random search).
  island_points<TwinKernel::island_twoshot>(out, 20000, c.ops3, c.ops2, c.ops2);
  out.push_back(bound_case<I<TwinKernel::island_twoshot, 3, 1, 1>>(island_config(c.ops2, 3, 2), 2));
}

void fused_island_cases(std::vector<ModelCase>& out) {
  const Configs c;
  island_points<TwinKernel::fused_island>(out, 8000, c.ops2, c.wide, c.rows3);
  island_points<TwinKernel::fused_island_twoshot>(out, 20000, c.ops2, c.wide, c.rows3);
}

}  // namespace arbench::model
