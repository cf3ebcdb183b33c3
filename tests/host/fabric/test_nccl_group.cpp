// A grouped NCCL setup collective (kernels/fabric/nccl/nccl_group.hpp) is never ended on a partial
// set: a fake group that, like NCCL, runs at its end whatever calls went in, unless the group was
// marked failed. When rank 2 of 4 fails, ranks 0 and 1 are in: ending the group as is would run
// their half of a collective (a hang in NCCL). probe_symmetric used to end it so.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/fabric/nccl/nccl_group.hpp"

namespace arbench {
namespace {

struct FakeGroup {
  std::vector<int> in;  // ranks whose call went into the group
  bool failed = false;
  std::vector<int> ran;  // what ending the group ran
  int failing_rank = -1;
  int start() { return 0; }
  int call(int r) {
    if (r == failing_rank) return 5;  // returns before NCCL records the failure in the group
    in.push_back(r);
    return 0;
  }
  int end() {
    if (!failed) ran = in;
    return failed ? 5 : 0;
  }
  int setup(int world) {
    return grouped_setup(world, 0, [&] { return start(); }, [&](int r) { return call(r); }, [&] { failed = true; },
                         [&] { return end(); });
  }
};

TEST(NcclGroup, AFailedRankAbandonsTheGroupInsteadOfRunningAPartialSet) {
  FakeGroup g;
  g.failing_rank = 2;
  EXPECT_EQ(g.setup(4), 5);
  EXPECT_TRUE(g.ran.empty()) << "ending the group ran the calls of " << g.ran.size() << " of 4 ranks";
  EXPECT_EQ(g.in, (std::vector<int>{0, 1})) << "no rank is called after a failure";
}

TEST(NcclGroup, EveryRankSucceedingRunsTheWholeSet) {
  FakeGroup g;
  EXPECT_EQ(g.setup(4), 0);
  EXPECT_EQ(g.ran, (std::vector<int>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace arbench
