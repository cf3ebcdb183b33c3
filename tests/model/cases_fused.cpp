// The correct fused-oneshot, fused-twoshot and add_rmsnorm (unfused: oneshot-pull, then the norm
// kernel): the configurations they must pass (bounds and measured costs: tests/model/README.md).
#include "tests/model/fused_model.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {
namespace {

using K = TwinKernel;
using M = RelacyMem<>;
template <K Kern, int W, int B, int T>
using F = FusedTest<M, Kern, W, B, T>;

template <K Kern>
void points(std::vector<ModelCase>& out, unsigned long it) {
  ModelConfig two_rows;  // 2 rows of 9 elements: 2 packs each, the second partial
  ModelConfig wide = two_rows;  // 1 row of 4 packs: the lane tree crosses threads with T = 2
  wide.tokens = 1;
  wide.hidden = 27;
  wide.ops = 3;
  ModelConfig three_rows = two_rows;  // W3: every rank owns a row; B2: both blocks have rows
  three_rows.tokens = 3;
  ModelConfig one_row = two_rows;  // fused-twoshot: rank 1 owns no row
  one_row.tokens = 1;
  ModelConfig wrap = wide;
  wrap.start = 0xfffffffeu;
  ModelConfig missing = two_rows;
  missing.scenario = Scenario::missing_rank;
  out.push_back(random_case<F<Kern, 2, 1, 1>>(two_rows, it));
  out.push_back(random_case<F<Kern, 2, 1, 2>>(wide, it));
  out.push_back(random_case<F<Kern, 2, 1, 2>>(one_row, it));
  out.push_back(random_case<F<Kern, 3, 1, 1>>(three_rows, it));
  out.push_back(random_case<F<Kern, 2, 2, 1>>(three_rows, it));
  out.push_back(random_case<F<Kern, 2, 1, 2>>(wrap, it));
  // add_rmsnorm runs its norm kernel after a failed all-reduce (by design; the twins' missing-rank
  // check excludes it too).
  if constexpr (Kern != K::add_rmsnorm) out.push_back(random_case<F<Kern, 2, 1, 2>>(missing, it));
  ModelConfig wide2 = wide;
  wide2.ops = 2;
  out.push_back(bound_case<F<Kern, 2, 1, 1>>(two_rows, 2));
  out.push_back(bound_case<F<Kern, 2, 1, 2>>(wide2, 1));
  out.push_back(bound_case<F<Kern, 3, 1, 1>>(three_rows, 1));
  out.push_back(bound_case<F<Kern, 2, 2, 1>>(three_rows, 1));
}

}  // namespace

void fused_cases(std::vector<ModelCase>& out) {
  points<K::fused_oneshot>(out, 10000);
  points<K::fused_twoshot>(out, 10000);
  points<K::add_rmsnorm>(out, 10000);
}

}  // namespace arbench::model
