// The correct native ring: the configurations it must pass (bounds and measured costs:
// tests/model/README.md). C = channels (one block each).
#include "tests/model/model_case.hpp"
#include "tests/model/ring_model.hpp"

namespace arbench::model {
namespace {

template <int W, int C, int T>
using R = RingTest<RelacyMem<>, W, C, T>;

}  // namespace

void ring_cases(std::vector<ModelCase>& out) {
  const Configs c;
  ModelConfig chunk2 = c.ops2;
  chunk2.chunk_packs = 2;  // both threads of a block write one transfer's slot
  ModelConfig chunk2_ops3 = chunk2;
  chunk2_ops3.ops = 3;
  ModelConfig missing = c.missing;
  missing.chunk_packs = 2;
  const unsigned long it = 10000;
  out.push_back(random_case<R<2, 1, 1>>(c.ops2, it));
  out.push_back(random_case<R<2, 1, 2>>(chunk2, it));
  out.push_back(random_case<R<2, 1, 2>>(chunk2_ops3, it));
  out.push_back(random_case<R<3, 1, 1>>(c.ops2, it));
  out.push_back(random_case<R<2, 2, 1>>(c.ops2, it));
  out.push_back(random_case<R<2, 1, 1>>(c.wrap, it));
  out.push_back(random_case<R<2, 1, 2>>(missing, it));
  // Credits only matter once a sender can lap its receiver: N - 1 > kSlots = 4 transfers ahead.
  out.push_back(random_case<R<6, 1, 1>>(c.ops2, 5000));
  // Bounded search fits one channel of one thread at 2 ranks only: every transfer adds three
  // block barriers and two flag waits, and W3 C1 T1 at bound 1 already takes 1.4 M iterations
  // (93 s on an idle 2-core box), W2 C2 T1 at bound 1 over 60 s; those run under random search.
  out.push_back(bound_case<R<2, 1, 1>>(c.ops2, 2));
}

}  // namespace arbench::model
