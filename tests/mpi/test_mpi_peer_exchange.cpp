// The cuda provider's handle exchange across 2..4 real processes with fake handles (memfds):
// `mpirun -np N arbench_peer_exchange_probe` (tests/mpi/probe/peer_exchange_probe.cpp), whose
// processes map each other's "GPU memory" through descriptors passed over a Unix-domain socket,
// and agree on every failure.
#include <gtest/gtest.h>

#include "mpi_util.hpp"

TEST(MpiPeerExchange, TwoToFourProcessesMapEachOthersChunksAndAgreeOnFailures) {
  for (int n : {2, 3, 4}) {
    const MpiResult r = run_command(std::string(ARBENCH_MPIEXEC) + " --allow-run-as-root --oversubscribe -np " +
                                    std::to_string(n) + " " + ARBENCH_PEER_PROBE + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << n << " processes:\n" << r.output;
    EXPECT_NE(r.output.find("ALL OK"), std::string::npos) << r.output;
    EXPECT_EQ(count_of(r.output, "FAIL"), 0u) << r.output;
    EXPECT_EQ(count_of(r.output, ": ok "), std::size_t(n) * 14) << r.output;
  }
}
