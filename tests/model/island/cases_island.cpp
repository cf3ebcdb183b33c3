// The correct island-oneshot and island-twoshot protocols: the configurations they must pass
// (bounds and measured costs: tests/model/README.md). Two islands: 2 + 2 ranks (one partner per
// rank across), 1 + 3 (the lone rank serves the three of the other island) and 2 + 1 (a rank of
// the smaller island serves two; the other rank of the larger one sends nothing across).
#include "tests/model/island/island_model.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {
namespace {

using K = TwinKernel;
using M = RelacyMem<>;
template <K Kern, int W, int B, int T>
using I = IslandTest<M, Kern, W, B, T>;

template <K Kern>
void island_points(std::vector<ModelCase>& out, unsigned long it) {
  ModelConfig ops2, ops3, wrap, missing;
  ops3.ops = 3;
  wrap.ops = 3;
  wrap.start = 0xfffffffeu;  // 3 ops cross 2^32
  missing.scenario = Scenario::missing_rank;
  out.push_back(random_case<I<Kern, 4, 1, 1>>(island_config(ops2, 4, 2), it));
  out.push_back(random_case<I<Kern, 4, 1, 1>>(island_config(ops3, 4, 1), it));
  out.push_back(random_case<I<Kern, 3, 1, 1>>(island_config(ops3, 3, 2), it));
  out.push_back(random_case<I<Kern, 4, 1, 2>>(island_config(ops2, 4, 2), it));
  out.push_back(random_case<I<Kern, 4, 2, 1>>(island_config(ops2, 4, 2), it));
  out.push_back(random_case<I<Kern, 3, 1, 2>>(island_config(wrap, 3, 2), it));
  out.push_back(random_case<I<Kern, 4, 1, 2>>(island_config(missing, 4, 2), it));
}

}  // namespace

void island_cases(std::vector<ModelCase>& out) {
  ModelConfig ops2, one_pack;
  one_pack.elems = 5;
  // Every relaxed LL load is a "newest or previous" choice: island-oneshot's bounded search fits
  // only 1 + 1 ranks and one pack (W3 2 + 1 one pack at bound 1: 1.7 M iterations, 122 s).
  island_points<K::island_oneshot>(out, 6000);
  out.push_back(bound_case<I<K::island_oneshot, 2, 1, 1>>(island_config(one_pack, 2, 1), 2));
  // W4 2 + 2 at bound 1: 720 k iterations, 38 s; W3 T2 at bound 1: over 90 s (random search).
  island_points<K::island_twoshot>(out, 20000);
  out.push_back(bound_case<I<K::island_twoshot, 3, 1, 1>>(island_config(ops2, 3, 2), 2));
}

}  // namespace arbench::model
