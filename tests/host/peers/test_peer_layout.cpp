// The memory arbench gives the peers and the pointer tables their kernels read
// (kernels/peers/peer_layout.hpp), on the host fabric's symmetric buffers: every table entry is
// the buffer of the rank it names, as the rank that reads the table addresses it.
#include <gtest/gtest.h>

#include <memory>

#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/peers/peer_layout.hpp"
#include "workload/alternating.hpp"

using namespace arbench;

// pcie_ipc_init's ipc_ptrs: entry i addresses rank i's slab; entries past the world stay null.
TEST(PeerLayout, PcieIpcSlabTableNamesEveryPeersSlab) {
  HostFabric f(4);
  auto slab = f.alloc(4096, Placement::symmetric);
  for (int r = 0; r < 4; ++r) {
    const auto t = pcie_ipc_slab_table(*slab, r, 4);
    for (int p = 0; p < 4; ++p)
      EXPECT_EQ(reinterpret_cast<void*>(t[std::size_t(p)]), p == r ? slab->local(r) : slab->peer(r, p)) << r << " " << p;
    for (int p = 4; p < kMaxRanks; ++p) EXPECT_EQ(t[std::size_t(p)], 0);
    EXPECT_EQ(reinterpret_cast<void*>(t[std::size_t(r)]), slab->local(r));
  }
}

// trtllm_create_ipc_workspace_for_all_reduce_fusion's sizes, with the case's tokens as its
// max_token_num: buffer world x tokens x hidden x 2, flags world x 256 ints, three Lamport
// buffers of world x tokens x hidden x elem each; the flag word [0, 0, 0, lamport_comm, 0].
TEST(PeerLayout, FusionSizesAndFlagWordAsFlashInferSetsThem) {
  const FusionSizes s = fusion_sizes(8, 16, 8192, 2);
  EXPECT_EQ(s.buffer, 8u * 16 * 8192 * 2);
  EXPECT_EQ(s.flags, 8u * 256 * 4);
  EXPECT_EQ(s.lamport_comm, 8u * 16 * 8192 * 2);
  EXPECT_EQ(s.lamport, 3 * s.lamport_comm);
  const FusionSizes odd = fusion_sizes(2, 1, 8, 2);  // 32 bytes: rounded up to 16 each
  EXPECT_EQ(odd.lamport % 16, 0u);
  EXPECT_GE(odd.lamport, 3 * odd.lamport_comm);
  const auto w = fusion_flag_word(s);
  EXPECT_EQ(w[0], 0);
  EXPECT_EQ(w[1], 0);
  EXPECT_EQ(w[2], 0);
  EXPECT_EQ(std::size_t(w[3]), s.lamport_comm);
  EXPECT_EQ(w[4], 0);
}

// The workspace table the fusion kernels index: [0, N) two-shot buffers, [N, 2N) barrier flags,
// [2N, 3N) Lamport buffers, [3N] the rank's own flag word (SyncComm and LamportComm read these).
TEST(PeerLayout, FusionWorkspaceTableOrder) {
  constexpr int kWorld = 3;
  HostFabric f(kWorld);
  auto buffer = f.alloc(256, Placement::symmetric), flags = f.alloc(256, Placement::symmetric),
       lamport = f.alloc(256, Placement::symmetric), word = f.alloc(32, Placement::local);
  for (int r = 0; r < kWorld; ++r) {
    const auto t = fusion_workspace_table(*buffer, *flags, *lamport, word->local(r), r, kWorld);
    ASSERT_EQ(t.size(), std::size_t(3 * kWorld + 1));
    for (int p = 0; p < kWorld; ++p) {
      const auto at = [&](const RankBuffers& b) { return p == r ? b.local(r) : b.peer(r, p); };
      EXPECT_EQ(t[std::size_t(p)], at(*buffer));
      EXPECT_EQ(t[std::size_t(kWorld + p)], at(*flags));
      EXPECT_EQ(t[std::size_t(2 * kWorld + p)], at(*lamport));
    }
    EXPECT_EQ(t.back(), word->local(r));
  }
}

// vLLM: the two-stage kernel's temporary buffer holds the largest rank's share; RankSignals and
// RankData name every rank's Signal and input as the reading rank addresses them.
TEST(PeerLayout, VllmTablesAndTemporaryBuffer) {
  EXPECT_EQ(vllm_tmp_bytes(16 * 10, 4), (10 / 4 + 10 % 4) * 16u);  // the last rank takes the rest
  EXPECT_EQ(vllm_tmp_bytes(16 * 8, 8), 16u);
  HostFabric f(2);
  auto meta = f.alloc(1024, Placement::symmetric), in = f.alloc(64, Placement::symmetric);
  for (int r = 0; r < 2; ++r) {
    const auto sg = vllm_signal_table(*meta, r, 2), rd = vllm_rank_data(*in, r, 2);
    EXPECT_EQ(sg[std::size_t(r)], meta->local(r));
    EXPECT_EQ(sg[std::size_t(1 - r)], meta->peer(r, 1 - r));
    EXPECT_EQ(rd[std::size_t(1 - r)], in->peer(r, 1 - r));
    EXPECT_EQ(sg[2], nullptr);
  }
}

// The harness alternates two input sets: vLLM's kernel reads its input through the RankData
// registered for the set the op reads, so every set is registered and each op finds its slot.
TEST(PeerLayout, VllmFindsTheRegisteredSlotOfEveryInputSet) {
  HostFabric f(2);
  AlternatingBuffers in(f.alloc(64, Placement::symmetric), f.alloc(64, Placement::symmetric), 2);
  const auto sets = in.alternatives();
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(vllm_input_slot(in, 0), 0);  // not alternating: always set A
  in.alternate(true);
  for (int op = 0; op < 4; ++op)
    for (int r = 0; r < 2; ++r) {
      in.before_op(r);
      const int slot = vllm_input_slot(in, r);
      EXPECT_EQ(slot, in.current(r)) << "op " << op << " rank " << r;
      EXPECT_EQ(vllm_rank_data(*sets[std::size_t(slot)], r, 2)[std::size_t(r)], in.local(r));
    }
  auto plain = f.alloc(64, Placement::symmetric);
  EXPECT_EQ(vllm_input_slot(*plain, 1), 0);  // a buffer stands for itself
}
