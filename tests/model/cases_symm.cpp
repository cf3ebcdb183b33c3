// The correct oneshot-pull, oneshot-push and twoshot protocols: the configurations they must pass
// (bounds and measured costs: tests/model/README.md).
#include "tests/model/model_case.hpp"
#include "tests/model/symm_model.hpp"

namespace arbench::model {
namespace {

using K = TwinKernel;
using M = RelacyMem<>;
template <K Kern, int W, int B, int T>
using S = SymmTest<M, Kern, W, B, T>;

// The random scheduler's points, shared by the three kernels.
template <K Kern>
void random_points(std::vector<ModelCase>& out, unsigned long it) {
  ModelConfig ops2, ops3, wrap, missing;
  ops3.ops = 3;
  wrap.ops = 3;
  wrap.start = 0xfffffffeu;  // 3 ops cross 2^32
  missing.scenario = Scenario::missing_rank;
  out.push_back(random_case<S<Kern, 2, 1, 1>>(ops2, it));
  out.push_back(random_case<S<Kern, 2, 1, 2>>(ops3, it));
  out.push_back(random_case<S<Kern, 3, 1, 1>>(ops2, it));
  out.push_back(random_case<S<Kern, 2, 2, 1>>(ops2, it));
  out.push_back(random_case<S<Kern, 2, 1, 2>>(wrap, it));
  out.push_back(random_case<S<Kern, 2, 1, 2>>(missing, it));
}

}  // namespace

void symm_cases(std::vector<ModelCase>& out) {
  ModelConfig ops2, ops3, one_pack;
  ops3.ops = 3;
  one_pack.elems = 5;  // one partial pack
  random_points<K::oneshot_pull>(out, 20000);
  out.push_back(full_case<S<K::oneshot_pull, 2, 1, 1>>(ops2));
  out.push_back(bound_case<S<K::oneshot_pull, 2, 1, 2>>(ops2, 2));
  out.push_back(bound_case<S<K::oneshot_pull, 2, 1, 2>>(ops3, 1));
  out.push_back(bound_case<S<K::oneshot_pull, 3, 1, 1>>(ops2, 1));
  out.push_back(bound_case<S<K::oneshot_pull, 2, 2, 1>>(ops2, 1));

  // Every relaxed LL load is a "newest or previous" choice: the push's bounded search fits only
  // one pack (random search covers the rest).
  random_points<K::oneshot_push>(out, 10000);
  out.push_back(bound_case<S<K::oneshot_push, 2, 1, 1>>(one_pack, 2));

  random_points<K::twoshot>(out, 20000);
  out.push_back(bound_case<S<K::twoshot, 2, 1, 2>>(ops2, 1));
  out.push_back(bound_case<S<K::twoshot, 3, 1, 1>>(ops2, 1));
}

}  // namespace arbench::model
