// The correct oneshot-pull, oneshot-push and twoshot protocols: the configurations they must pass
// (bounds and measured costs: tests/model/README.md).
#include "tests/model/model_case.hpp"
#include "tests/model/symm_model.hpp"

namespace arbench::model {
namespace {

using K = TwinKernel;
template <K Kern, int W, int B, int T>
using S = SymmTest<RelacyMem<>, Kern, W, B, T>;

}  // namespace

void symm_cases(std::vector<ModelCase>& out) {
  const Configs c;
  symm_random_points<K::oneshot_pull>(out, 20000);
  symm_bounded_points<K::oneshot_pull>(out);

  // Every relaxed LL load is a "newest or previous" choice: the push's bounded search fits only
  // one pack (random search covers the rest).
  symm_random_points<K::oneshot_push>(out, 10000);
  out.push_back(bound_case<S<K::oneshot_push, 2, 1, 1>>(c.one_pack, 2));

  symm_random_points<K::twoshot>(out, 20000);
  symm_bounded_points<K::twoshot>(out);
}

}  // namespace arbench::model
