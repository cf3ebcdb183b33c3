// The functional peer check (kernels/fabric/host/peer_check/peer_check.hpp) when its backend misbehaves, on
// the fake backend (fake_peer_probe.hpp): a probe that never finishes marks its rank's pairs
// broken and the check goes on, bounded; a HangError anywhere stays inside the check; a sticky
// fault stops the probing and is recorded for the fabric to end the run with; and the bulk part
// catches a pair whose words pass but whose bulk data arrives corrupted or without its flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "kernels/fabric/host/peer_check/peer_check.hpp"
#include "tests/host/fabric/peer_check/fake_peer_probe.hpp"

namespace arbench {
namespace {

constexpr std::size_t kBulk = 64 * 1024;  // the fake moves 64 KiB per pair and path

std::string last_fatal;  // what the last run_check() was told of a fatal fault

PeerAccess run_check(PeerProbe& probe, int world, PeerCheckOptions opt = {}) {
  last_fatal = "(not set)";
  opt.fatal = &last_fatal;
  return check_peer_access(probe, world, [](int) { return true; }, {}, solo_world(), 0.02, 5, "fake", "GPU", opt);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(PeerCheckFaults, AProbeThatNeverFinishesMarksItsPairsAndTheCheckGoesOn) {
  testing::FakePeerProbe probe(4, kBulk);
  probe.never_finishes.insert(2);
  PeerCheckOptions opt;
  opt.bulk_bytes = kBulk;
  opt.finish_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  PeerAccess m;
  EXPECT_NO_THROW(m = run_check(probe, 4, opt));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 0.3 * 10) << "bounded by the finish wait, not by the stuck probe";
  EXPECT_GE(took, 0.3) << "it waited for the stuck probe up to its bound";
  for (int p : {0, 1, 3}) {
    EXPECT_EQ(m.at(2, p).path, PeerPath::broken) << "2 -> " << p;
    EXPECT_TRUE(has(m.at(2, p).detail, "did not finish within 300 ms")) << m.at(2, p).detail;
    EXPECT_EQ(m.at(p, 2).path, PeerPath::ok) << p << " -> 2: its memory is still read (not on the stuck stream)";
  }
  EXPECT_EQ(m.at(0, 1).path, PeerPath::ok);
  EXPECT_EQ(m.at(3, 0).path, PeerPath::ok);
  EXPECT_EQ(last_fatal, "");
  EXPECT_TRUE(has(broken_peer_reason(m), "GPU 2 -> GPU 0")) << broken_peer_reason(m);
}

TEST(PeerCheckFaults, AHangErrorInAnyStepStaysInsideTheCheck) {
  testing::FakePeerProbe probe(4, 0);
  probe.prepare_hangs.insert(1);
  probe.header_hangs.insert(3);
  PeerAccess m;
  EXPECT_NO_THROW(m = run_check(probe, 4));
  for (int p : {0, 2, 3}) {  // rank 1 was never prepared: its probe did not start
    EXPECT_EQ(m.at(1, p).path, PeerPath::broken);
    EXPECT_TRUE(has(m.at(1, p).detail, "preparing the probe memory")) << m.at(1, p).detail;
  }
  EXPECT_EQ(std::count(probe.calls.begin(), probe.calls.end(), "start 1"), 0);
  for (int q : {0, 2}) {  // rank 3's memory cannot be read: nothing into it is known to arrive
    EXPECT_EQ(m.at(q, 3).path, PeerPath::broken);
    EXPECT_TRUE(has(m.at(q, 3).detail, "could not be read back")) << m.at(q, 3).detail;
  }
  EXPECT_EQ(m.at(1, 3).path, PeerPath::broken);
  EXPECT_EQ(m.at(0, 2).path, PeerPath::ok);
  EXPECT_EQ(m.at(2, 0).path, PeerPath::ok);
}

TEST(PeerCheckFaults, AStickyFaultStopsTheProbingAndIsRecorded) {
  testing::FakePeerProbe probe(4, 0);
  probe.faults[1] = "GPU 1 reports cudaErrorIllegalAddress (fake)";
  PeerAccess m;
  EXPECT_NO_THROW(m = run_check(probe, 4));
  EXPECT_EQ(last_fatal, "GPU 1 reports cudaErrorIllegalAddress (fake)");
  EXPECT_EQ(std::count(probe.calls.begin(), probe.calls.end(), "start 2"), 0) << "nothing more after the fault";
  EXPECT_EQ(std::count(probe.calls.begin(), probe.calls.end(), "start 3"), 0);
  EXPECT_EQ(std::count_if(probe.calls.begin(), probe.calls.end(), [](const std::string& c) { return c.rfind("header", 0) == 0; }), 0)
      << "a dead context is not read";
  EXPECT_EQ(m.at(1, 0).path, PeerPath::broken);
  EXPECT_TRUE(has(m.at(2, 0).detail, "not checked: a GPU faulted")) << m.at(2, 0).detail;
  EXPECT_EQ(m.at(0, 3).path, PeerPath::broken) << "not known to arrive";
}

TEST(PeerCheckFaults, BulkDataCorruptedBehindPassingWordsIsCaught) {
  testing::FakePeerProbe probe(4, kBulk);
  probe.corrupt.insert({0, 2, 0});  // the copy engine's data, 0 -> 2
  probe.corrupt.insert({3, 1, 1});  // SM stores, 3 -> 1
  PeerCheckOptions opt;
  opt.bulk_bytes = kBulk;
  const PeerAccess m = run_check(probe, 4, opt);
  EXPECT_EQ(m.at(0, 2).path, PeerPath::broken);
  EXPECT_TRUE(has(m.at(0, 2).detail, "copy-engine transfer through the mapping arrived corrupted: 1 of 8192 words"))
      << m.at(0, 2).detail;
  EXPECT_EQ(m.at(3, 1).path, PeerPath::broken);
  EXPECT_TRUE(has(m.at(3, 1).detail, "SM-store transfer")) << m.at(3, 1).detail;
  EXPECT_GE(m.at(0, 2).write_us, 0.0) << "its word passed";
  for (auto [a, b] : {std::pair{2, 0}, {1, 3}, {0, 1}, {2, 3}}) EXPECT_EQ(m.at(a, b).path, PeerPath::ok) << a << "->" << b;
  // Without the bulk part the same pairs pass: the words alone cannot see it.
  testing::FakePeerProbe words_only(4, kBulk);
  words_only.corrupt = probe.corrupt;
  EXPECT_TRUE(broken_peer_reason(run_check(words_only, 4)).empty());
}

TEST(PeerCheckFaults, ABulkFlagThatNeverArrivesIsNamed) {
  testing::FakePeerProbe probe(3, kBulk);
  probe.flag_lost.insert({1, 0, 1});
  PeerCheckOptions opt;
  opt.bulk_bytes = kBulk;
  const PeerAccess m = run_check(probe, 3, opt);
  EXPECT_EQ(m.at(1, 0).path, PeerPath::broken);
  EXPECT_TRUE(has(m.at(1, 0).detail, "the flag after the 0.0625 MiB SM-store transfer did not arrive")) << m.at(1, 0).detail;
  EXPECT_EQ(m.at(0, 1).path, PeerPath::ok);
}

TEST(PeerCheckFaults, TheBulkPatternTellsWordsPairsAndPathsApart) {
  EXPECT_NE(peer_bulk_word(1, 0, 1, 0, 5), peer_bulk_word(1, 0, 1, 0, 6));
  EXPECT_NE(peer_bulk_word(1, 0, 1, 0, 5), peer_bulk_word(1, 1, 0, 0, 5));
  EXPECT_NE(peer_bulk_word(1, 0, 1, 0, 5), peer_bulk_word(1, 0, 1, 1, 5));
  EXPECT_NE(peer_bulk_word(1, 0, 1, 0, 5), peer_bulk_word(2, 0, 1, 0, 5));
  EXPECT_EQ(peer_probe_bytes(8, kPeerBulkBytes), kPeerProbeBytes + 8 * 2 * kPeerBulkBytes);
  EXPECT_EQ(peer_bulk_offset(3, 1, kBulk), kPeerProbeBytes + 7 * kBulk);
}

}  // namespace
}  // namespace arbench
