// The correct fused-oneshot, fused-twoshot and add_rmsnorm (unfused: oneshot-pull, then the norm
// kernel): the configurations they must pass (bounds and measured costs: tests/model/README.md).
// Rows (Configs): ops2 = 2 rows of 9 elements, 2 packs each, the second partial; wide = 1 row of
// 4 packs, the lane tree crosses threads with T = 2; rows3 = 3 rows, W3: every rank owns a row,
// B2: both blocks have rows; one_row: fused-twoshot's rank 1 owns no row.
#include "tests/model/fused_model.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {
namespace {

using K = TwinKernel;
template <K Kern, int W, int B, int T>
using F = FusedTest<RelacyMem<>, Kern, W, B, T>;

// Every kernel's points; random search: 10,000 schedules each.
template <K Kern>
void points(std::vector<ModelCase>& out) {
  const unsigned long it = 10000;
  const Configs c;
  ModelConfig wide3 = c.wide;
  wide3.ops = 3;
  ModelConfig one_row = c.ops2;
  one_row.tokens = 1;
  ModelConfig wrap = wide3;
  wrap.start = c.wrap.start;
  out.push_back(random_case<F<Kern, 2, 1, 1>>(c.ops2, it));
  out.push_back(random_case<F<Kern, 2, 1, 2>>(wide3, it));
  out.push_back(random_case<F<Kern, 2, 1, 2>>(one_row, it));
  out.push_back(random_case<F<Kern, 3, 1, 1>>(c.rows3, it));
  out.push_back(random_case<F<Kern, 2, 2, 1>>(c.rows3, it));
  out.push_back(random_case<F<Kern, 2, 1, 2>>(wrap, it));
  // add_rmsnorm runs its norm kernel after a failed all-reduce (by design; the twins' missing-rank
  // check excludes it too).
  if constexpr (Kern != K::add_rmsnorm) out.push_back(random_case<F<Kern, 2, 1, 2>>(c.missing, it));
  out.push_back(bound_case<F<Kern, 2, 1, 1>>(c.ops2, 2));
  out.push_back(bound_case<F<Kern, 2, 1, 2>>(c.wide, 1));
  out.push_back(bound_case<F<Kern, 3, 1, 1>>(c.rows3, 1));
  out.push_back(bound_case<F<Kern, 2, 2, 1>>(c.rows3, 1));
}

}  // namespace

void fused_cases(std::vector<ModelCase>& out) {
  points<K::fused_oneshot>(out);
  points<K::fused_twoshot>(out);
  points<K::add_rmsnorm>(out);
}

}  // namespace arbench::model
