// The correct fused-island-oneshot and fused-island-twoshot protocols: the configurations they
// must pass. Islands as cases_island.cpp; rows as cases_fused.cpp (2 rows of 9 elements = 2
// packs each, the second partial; 1 row of 27 = 4 packs, so the norm's lane tree crosses threads
// with T = 2; 3 rows with B = 2, so both blocks own rows).
#include "tests/model/island/fused_island_model.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {
namespace {

using K = TwinKernel;
using M = RelacyMem<>;
template <K Kern, int W, int B, int T>
using F = FusedIslandTest<M, Kern, W, B, T>;

template <K Kern>
void fused_island_points(std::vector<ModelCase>& out, unsigned long it) {
  ModelConfig ops2, ops3, wide, rows3, wrap, missing;
  ops3.ops = 3;
  wide.tokens = 1;
  wide.hidden = 27;
  rows3.tokens = 3;
  wrap.ops = 3;
  wrap.start = 0xfffffffeu;
  missing.scenario = Scenario::missing_rank;
  out.push_back(random_case<F<Kern, 4, 1, 1>>(island_config(ops2, 4, 2), it));
  out.push_back(random_case<F<Kern, 3, 1, 1>>(island_config(ops3, 3, 2), it));
  out.push_back(random_case<F<Kern, 4, 1, 1>>(island_config(ops2, 4, 1), it));
  out.push_back(random_case<F<Kern, 4, 1, 2>>(island_config(wide, 4, 2), it));
  out.push_back(random_case<F<Kern, 4, 2, 1>>(island_config(rows3, 4, 2), it));
  out.push_back(random_case<F<Kern, 3, 1, 2>>(island_config(wrap, 3, 2), it));
  out.push_back(random_case<F<Kern, 4, 1, 2>>(island_config(missing, 4, 2), it));
}

}  // namespace

void fused_island_cases(std::vector<ModelCase>& out) {
  fused_island_points<K::fused_island>(out, 8000);
  fused_island_points<K::fused_island_twoshot>(out, 20000);
}

}  // namespace arbench::model
