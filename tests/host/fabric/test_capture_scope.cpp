// A stream capture is ended on every path (kernels/fabric/cuda/capture_scope.hpp): an op that
// throws while the ranks' streams capture leaves no stream capturing. A fake capture log stands
// in for the CUDA streams; the GPU half (tests/gpu/test_scope_guards_gpu.cpp) throws inside a
// real capture and checks that the next op runs.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "kernels/fabric/cuda/capture_scope.hpp"

namespace arbench {
namespace {

struct FakeStreams {
  std::set<std::size_t> capturing;
  int discarded = 0;
  void begin(std::size_t i) { capturing.insert(i); }
  void end(std::size_t i) { capturing.erase(i); }
};

// The order of time_pipelined: begin every stream, launch the ops, end every stream.
void capture(FakeStreams& s, std::size_t streams, int throw_at_op) {
  CaptureScope scope([&](std::size_t i) {
    s.end(i);
    ++s.discarded;
  });
  for (std::size_t i = 0; i < streams; ++i) {
    s.begin(i);
    scope.begun(i);
  }
  for (int k = 0; k < 4; ++k)
    if (k == throw_at_op) throw std::runtime_error("op " + std::to_string(k) + " failed to launch");
  for (std::size_t i = 0; i < streams; ++i) {
    s.end(i);
    scope.ended(i);
  }
}

TEST(CaptureScope, AThrowingLaunchEndsEveryOpenCapture) {
  FakeStreams s;
  EXPECT_THROW(capture(s, 3, 2), std::runtime_error);
  EXPECT_TRUE(s.capturing.empty()) << s.capturing.size() << " streams still capture: their next ops would not run";
  EXPECT_EQ(s.discarded, 3);
}

TEST(CaptureScope, ACompletedCaptureIsNotEndedTwice) {
  FakeStreams s;
  capture(s, 3, -1);
  EXPECT_TRUE(s.capturing.empty());
  EXPECT_EQ(s.discarded, 0);
}

TEST(CaptureScope, AFailingBeginLeavesOnlyTheBegunStreamsToEnd) {
  FakeStreams s;
  {
    CaptureScope scope([&](std::size_t i) {
      s.end(i);
      ++s.discarded;
    });
    s.begin(0);
    scope.begun(0);  // stream 1's begin "failed": never noted
  }
  EXPECT_EQ(s.discarded, 1);
}

}  // namespace
}  // namespace arbench
