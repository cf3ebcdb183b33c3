// NCCL's LSA team must be the world, checked from the device communicator, not assumed
// (kernels/fabric/nccl/lsa_team.hpp). ncclGetLsaPointer never returns null: before this check a
// team of 4 in a world of 8 gave 4 ranks addresses beyond the team with nothing mapped there.
#include <gtest/gtest.h>

#include "kernels/fabric/nccl/lsa_team.hpp"

namespace arbench {
namespace {

TEST(LsaTeam, TheWholeWorldAtItsOwnRankPasses) {
  EXPECT_EQ(lsa_team_problem(8, 0, 8, 0), "");
  EXPECT_EQ(lsa_team_problem(8, 7, 8, 7), "");
  EXPECT_EQ(lsa_team_problem(1, 0, 1, 0), "");
}

TEST(LsaTeam, ASmallerTeamIsRefusedWithTheReason) {
  const std::string why = lsa_team_problem(8, 5, 4, 1);
  EXPECT_NE(why.find("holds 4 of the 8 ranks"), std::string::npos) << why;
  EXPECT_NE(why.find("LSA rank is 1"), std::string::npos) << why;
  EXPECT_NE(why.find("host name"), std::string::npos) << why;
  EXPECT_NE(why.find("skipped"), std::string::npos) << why;
}

TEST(LsaTeam, ATeamOfTheWorldSizeAtAnotherRankIsRefused) {
  EXPECT_NE(lsa_team_problem(4, 1, 4, 2), "") << "LSA rank 2 is not world rank 1: peer indices would be shifted";
}

}  // namespace
}  // namespace arbench
