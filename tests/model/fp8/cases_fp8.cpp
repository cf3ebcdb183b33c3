// The correct oneshot-fp8 and twoshot-fp8 (the oneshot-pull and twoshot protocols with the FP8
// payload): the configurations of their exact kernels (symm_model.hpp's random points, and the
// bounded points that fit; bounds and measured costs: tests/model/README.md), and at each random
// point the check that the FP8 world registers the same flag and epoch-counter words as the
// exact one (sync_words.hpp).
#include "tests/model/fp8/sync_words.hpp"

namespace arbench::model {
namespace {

using K = TwinKernel;
template <K Kern, int W, int B, int T>
using S = SymmTest<RelacyMem<>, Kern, W, B, T>;

template <K Kern>
void sync_points(std::vector<ModelCase>& out) {
  each_symm_point([&]<int W, int B, int T>(const ModelConfig& cfg) { out.push_back(same_sync_case<Kern, W, B, T>(cfg)); });
}

}  // namespace

void fp8_cases(std::vector<ModelCase>& out) {
  const Configs c;
  sync_points<K::oneshot_fp8>(out);
  symm_random_points<K::oneshot_fp8>(out, 20000);
  out.push_back(full_case<S<K::oneshot_fp8, 2, 1, 1>>(c.ops2));
  out.push_back(bound_case<S<K::oneshot_fp8, 2, 1, 2>>(c.ops2, 2));
  out.push_back(bound_case<S<K::oneshot_fp8, 2, 1, 2>>(c.ops3, 1));
  out.push_back(bound_case<S<K::oneshot_fp8, 3, 1, 1>>(c.ops2, 1));
  out.push_back(bound_case<S<K::oneshot_fp8, 2, 2, 1>>(c.ops2, 1));

  sync_points<K::twoshot_fp8>(out);
  symm_random_points<K::twoshot_fp8>(out, 20000);
  out.push_back(bound_case<S<K::twoshot_fp8, 2, 1, 2>>(c.ops2, 1));
  out.push_back(bound_case<S<K::twoshot_fp8, 3, 1, 1>>(c.ops2, 1));
}

}  // namespace arbench::model
