// The watchdog of NCCL's blocking setup calls (kernels/fabric/nccl/watchdog.hpp): a call that
// returns in time is untouched; one that overruns its bound gets its communicators aborted, the
// finished cases written (last words, with the step's name) and the process ended with exit 1.
// The blocking calls are fakes: one that returns when "aborted" (as NCCL's waits do once the
// abort flag is set), one that never returns.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "arbench/last_words.hpp"
#include "kernels/fabric/nccl/watchdog.hpp"

namespace arbench {
namespace {

TEST(Watchdog, ACallThatReturnsInTimeIsUntouched) {
  int exits = 0;
  Watchdog dog([] { FAIL() << "abort called"; }, 1.0, [&](int) { ++exits; });
  EXPECT_EQ(dog.guard("creating the communicators", 5.0, [] { return 42; }), 42);
  for (int i = 0; i < 100; ++i) dog.guard("an NCCL group of ops", 5.0, [] {});  // every op is guarded
  EXPECT_FALSE(dog.fired());
  EXPECT_EQ(exits, 0);
}

TEST(Watchdog, AStuckCallIsAbortedAndTheFinishedCasesAreWritten) {
  std::atomic<bool> aborted{false}, recorded_before_abort{false};
  int exit_code = -1;
  std::string last;
  set_last_words([&](const std::string& why) { last = why; });
  Watchdog dog(
      [&] {
        recorded_before_abort = !last.empty();
        aborted = true;
      },
      5.0, [&](int code) { exit_code = code; });
  const auto t0 = std::chrono::steady_clock::now();
  try {
    dog.guard("ncclDevCommCreate (grouped, in ncclGroupEnd)", 0.2, [&] {
      while (!aborted) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // NCCL's wait, until the abort flag
    });
    FAIL() << "no HangError";
  } catch (const HangError& e) {
    EXPECT_NE(std::string(e.what()).find("ncclDevCommCreate"), std::string::npos) << e.what();
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 4.0) << "the bound was 0.2 s";
  EXPECT_TRUE(aborted);
  EXPECT_TRUE(recorded_before_abort) << "the finished cases are written before the abort, which may crash";
  EXPECT_EQ(exit_code, 1);
  EXPECT_NE(last.find("NCCL setup hung: ncclDevCommCreate"), std::string::npos) << last;
  set_last_words({});
}

TEST(Watchdog, RearmingForTheNextCallResetsTheDeadline) {
  int exits = 0;
  Watchdog dog({}, 1.0, [&](int) { ++exits; });
  for (int i = 0; i < 5; ++i)
    dog.guard("op", 0.15, [] { std::this_thread::sleep_for(std::chrono::milliseconds(60)); });
  EXPECT_EQ(exits, 0) << "five calls of 60 ms, each within its own 150 ms bound";
}

// The real exit: a call that never returns, not even after the abort, ends the process with exit
// 1, naming the step, after the finished cases were written.
TEST(WatchdogDeathTest, ACallThatNeverReturnsEndsTheProcessNamingTheStep) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        set_last_words([](const std::string& why) { std::fprintf(stderr, "LAST WORDS: %s\n", why.c_str()); });
        Watchdog dog([] {}, 0.2);
        dog.guard("creating the NCCL communicators (ncclGroupEnd of 8 ncclCommInitRankConfig)", 0.2, [] {
          for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        });
      },
      ::testing::ExitedWithCode(1), "LAST WORDS: NCCL setup hung: creating the NCCL communicators");
}

// An abort that crashes (ncclCommAbort racing an unfinished init) still leaves the last words:
// they were written first.
TEST(WatchdogDeathTest, AnAbortThatCrashesStillLeavesTheLastWords) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        set_last_words([](const std::string& why) { std::fprintf(stderr, "LAST WORDS: %s\n", why.c_str()); });
        Watchdog dog([] { std::abort(); }, 5.0);
        dog.guard("ncclCommInitRankConfig", 0.2, [] {
          for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        });
      },
      "LAST WORDS: NCCL setup hung: ncclCommInitRankConfig");
}

}  // namespace
}  // namespace arbench
