// How the processes of a run agree on a failure (arbench/world.hpp), seen from one process.
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "arbench/world.hpp"
#include "../fake_world.hpp"

using namespace arbench;

TEST(World, SoloWorldIsOneProcessAndPassesErrorsThrough) {
  SoloWorld w;
  EXPECT_EQ(w.size(), 1);
  EXPECT_FALSE(w.multi_process());
  EXPECT_EQ(first_failure(w, "mine", "x"), "mine");
  // One process: the error is the original one, not an agreed copy.
  try {
    agree_on_errors(w, [] { throw UsageError("bad"); }, "x");
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_EQ(dynamic_cast<const AgreedError*>(&e), nullptr);
  }
}

TEST(World, FirstFailureIsTheLowestRanksOnEveryProcess) {
  FakeWorld w(2, 4);
  w.peers = {"", "rank 1 broke", "", "rank 3 broke"};
  EXPECT_EQ(first_failure(w, "rank 2 broke", "x"), "rank 1 broke");
  w.peers = {"", "", "", ""};
  EXPECT_EQ(first_failure(w, "", "x"), "");
  EXPECT_EQ(first_failure(w, "mine", "x"), "mine");
}

TEST(World, EveryProcessThrowsTheLowestRanksErrorWithItsType) {
  FakeWorld w(1, 3);
  // This process passed; process 0 failed with an environment error: this one throws it too.
  w.peers = {error_token(std::make_exception_ptr(EnvironmentError("GPU 0 lost"))), "",
             error_token(std::make_exception_ptr(CaseError("later")))};
  try {
    agree_on_errors(w, [] {}, "x");
    FAIL() << "no throw";
  } catch (const EnvironmentError& e) {
    EXPECT_STREQ(e.what(), "GPU 0 lost");
    EXPECT_EQ(e.exit_code(), kExitEnvironment);
    EXPECT_NE(dynamic_cast<const AgreedError*>(&e), nullptr);
  }
  // Every process passed: nothing is thrown, after one collective.
  w.peers = {"", "", ""};
  w.collectives = 0;
  agree_on_errors(w, [] {}, "x");
  EXPECT_EQ(w.collectives, 1);
}

TEST(World, ErrorTokensKeepTypeCodeAndMessage) {
  auto round_trip = [](std::exception_ptr e) -> std::pair<int, std::string> {
    try {
      throw_agreed(error_token(e));
    } catch (const CaseError& x) {
      return {100 + x.exit_code(), x.what()};
    } catch (const UsageError& x) {
      return {200 + x.exit_code(), x.what()};
    } catch (const Error& x) {
      return {x.exit_code(), x.what()};
    }
  };
  EXPECT_EQ(round_trip(std::make_exception_ptr(CaseError("a: b"))), std::make_pair(101, std::string("a: b")));
  EXPECT_EQ(round_trip(std::make_exception_ptr(UsageError("u"))), std::make_pair(202, std::string("u")));
  EXPECT_EQ(round_trip(std::make_exception_ptr(std::runtime_error("boom"))),
            std::make_pair(1, std::string("internal error: boom")));
  EXPECT_EQ(error_token(nullptr), "");
}
