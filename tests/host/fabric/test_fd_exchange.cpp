// all_gather_fds (kernels/fabric/peer/fd_exchange.hpp) between 2..4 "processes" that are threads
// (tests/host/thread_world.hpp): each passes a memfd holding its rank, and every one reads every
// peer's through the descriptor it received. Failures are agreed and bounded. tests/mpi passes
// descriptors between real processes.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "../thread_world.hpp"
#include "kernels/fabric/peer/fd_exchange.hpp"

using namespace arbench;
using arbench::testing::ThreadWorlds;

namespace {

UniqueFd memfd_saying(const std::string& text) {
  UniqueFd fd(::memfd_create("arbench-test", MFD_CLOEXEC));
  if (!fd.valid() || ::write(fd.get(), text.data(), text.size()) != ssize_t(text.size())) return UniqueFd();
  return fd;
}

std::string read_all(int fd) {
  char buf[64] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

}  // namespace

TEST(FdExchange, EveryProcessGetsEveryPeersDescriptor) {
  for (int n : {1, 2, 3, 4}) {
    ThreadWorlds worlds(n);
    std::vector<std::vector<std::string>> seen(static_cast<std::size_t>(n));
    worlds.run([&](World& w, int rank) {
      UniqueFd mine = memfd_saying("rank " + std::to_string(rank));
      std::vector<UniqueFd> fds = all_gather_fds(w, mine.get(), 5.0, "testing");
      for (const UniqueFd& f : fds) seen[std::size_t(rank)].push_back(read_all(f.get()));
      EXPECT_NE(fds[std::size_t(rank)].get(), mine.get()) << "its own slot is a duplicate, not the caller's fd";
    });
    for (int r = 0; r < n; ++r)
      for (int p = 0; p < n; ++p)
        EXPECT_EQ(seen[std::size_t(r)][std::size_t(p)], "rank " + std::to_string(p)) << n << " processes, " << r;
  }
}

TEST(FdExchange, ExchangesFollowingEachOtherDoNotMixTheirDescriptors) {
  ThreadWorlds worlds(3);
  worlds.run([&](World& w, int rank) {
    for (int round = 0; round < 20; ++round) {
      UniqueFd mine = memfd_saying(std::to_string(round) + "/" + std::to_string(rank));
      const auto fds = all_gather_fds(w, mine.get(), 5.0, "testing");
      for (int p = 0; p < 3; ++p)
        ASSERT_EQ(read_all(fds[std::size_t(p)].get()), std::to_string(round) + "/" + std::to_string(p));
    }
  });
}

// Process 2 cannot send (a bad descriptor): the others wait for its descriptor only until the
// deadline, and every process throws the same message, the lowest failing process's, which
// names the one that is missing.
TEST(FdExchange, AMissingDescriptorFailsEveryProcessAlikeWithinTheBound) {
  ThreadWorlds worlds(3);
  std::vector<std::string> errors(3);
  const auto t0 = std::chrono::steady_clock::now();
  worlds.run([&](World& w, int rank) {
    UniqueFd mine = memfd_saying("x");
    try {
      (void)all_gather_fds(w, rank == 2 ? -1 : mine.get(), 0.5, "sharing test descriptors");
    } catch (const CaseError& e) {
      errors[std::size_t(rank)] = e.what();
    }
  });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(errors[0].empty());
  EXPECT_EQ(errors[1], errors[0]);
  EXPECT_EQ(errors[2], errors[0]);
  EXPECT_NE(errors[0].find("sharing test descriptors"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("process 0 received no descriptor from process(es) 2 within 0.5 s"), std::string::npos)
      << errors[0];
  EXPECT_LT(took, 20.0) << "bounded by the 0.5 s deadline (plus a loaded machine's slack)";
}
