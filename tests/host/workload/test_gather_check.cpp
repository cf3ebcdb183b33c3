// Every rank's check, gathered over the processes of a run (workload/workload.hpp).
#include <gtest/gtest.h>

#include "../fake_world.hpp"
#include "workload/workload.hpp"

using namespace arbench;

namespace {

// What another process sends: its own check, as gather_check sends it.
std::string sent(const CheckResult& c) {
  FakeWorld other(0, 2);
  other.peers = {"", "0 0 0\n"};
  gather_check(other, c);
  return other.last_mine;
}

}  // namespace

TEST(GatherCheck, CountsAddUpWorstErrorAndLowestRanksFirstError) {
  FakeWorld w(1, 3);
  CheckResult r0, r2;
  r0.checked_elements = 100;
  r0.max_ulp_error = 0.5;
  r2.checked_elements = 100;
  r2.wrong_elements = 7;
  r2.max_ulp_error = 3.25;
  r2.first_error = "rank 2 element 5: got 1, want 2";
  w.peers = {sent(r0), "", sent(r2)};
  CheckResult mine;
  mine.checked_elements = 100;
  mine.wrong_elements = 1;
  mine.first_error = "rank 1 element 9: got nan, want 3\nand more";
  const CheckResult all = gather_check(w, mine);
  EXPECT_EQ(all.checked_elements, 300u);
  EXPECT_EQ(all.wrong_elements, 8u);
  EXPECT_DOUBLE_EQ(all.max_ulp_error, 3.25);
  EXPECT_EQ(all.first_error, "rank 1 element 9: got nan, want 3\nand more");
}

TEST(GatherCheck, OneProcessKeepsItsOwn) {
  SoloWorld w;
  CheckResult mine;
  mine.wrong_elements = 2;
  mine.first_error = "x";
  const CheckResult all = gather_check(w, mine);
  EXPECT_EQ(all.wrong_elements, 2u);
  EXPECT_EQ(all.first_error, "x");
}
