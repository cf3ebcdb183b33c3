// The memory each peer gets from arbench, and the pointer tables its kernels read, built from
// arbench's peer memory (RankBuffers: every rank's buffer as each rank addresses it) instead of the
// CUDA IPC handles the peers' own Python exchanges. Host code, tested on the host fabric
// (tests/host/peers/test_peer_layout.cpp); the adapters (kernels/peers/*.cu) upload what it builds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arbench/fabric.hpp"

namespace arbench {

// ---- FlashInfer's PCIe-IPC all-reduce: one slab per rank, zeroed once, and the array of every
// peer's slab address (pcie_ipc_init's ipc_ptrs: entry i addresses rank i's slab, as `rank` sees it).
std::array<std::int64_t, kMaxRanks> pcie_ipc_slab_table(const RankBuffers& slab, int rank, int world);

// ---- FlashInfer's fused all-reduce + RMSNorm (trtllm_create_ipc_workspace_for_all_reduce_fusion in
// flashinfer/comm/trtllm_ar.py): three peer buffers per rank and a rank-local flag word.
struct FusionSizes {
  std::size_t buffer = 0;       // two-shot exchange: world x tokens x hidden x 2 bytes
  std::size_t flags = 0;        // barrier flags: world x BarrierFlagCount (256) ints
  std::size_t lamport_comm = 0;  // one Lamport buffer: world x tokens x hidden x elem bytes
  std::size_t lamport = 0;      // the three of it, each rounded up to 16 bytes
};
// FlashInfer sizes these for the largest batch it will run (max_token_num); arbench prepares each
// case, so its own token count is that largest batch.
FusionSizes fusion_sizes(int world, int tokens, int hidden, int elem);
// The five ints of the flag word: read counter, barrier flag, Lamport flag, Lamport buffer size,
// clear size ([0, 0, 0, lamport_comm, 0]).
std::array<std::int32_t, 5> fusion_flag_word(const FusionSizes& s);
// The workspace table the kernels read (params.workspace): every rank's two-shot buffer, every
// rank's barrier flags, every rank's Lamport buffer (as `rank` addresses each), then `rank`'s own
// flag word: 3 x world + 1 pointers.
std::vector<void*> fusion_workspace_table(const RankBuffers& buffer, const RankBuffers& flags,
                                          const RankBuffers& lamport, void* flag_word, int rank, int world);

// ---- vLLM's custom all-reduce: a Signal followed by its temporary buffer per rank (the
// "meta" buffer), and the input registered with every peer's pointer (RankData).
// Bytes of the temporary buffer the two-stage kernel writes: the largest rank's share of the
// packs (packs / world + packs % world) x 16.
std::size_t vllm_tmp_bytes(std::size_t bytes, int world);
// RankSignals: every rank's Signal as `rank` addresses it.
std::array<void*, 8> vllm_signal_table(const RankBuffers& meta, int rank, int world);
// RankData of one input buffer: every rank's input as `rank` addresses it; one per buffer the
// input can be (RankBuffers::alternatives: the harness alternates two input sets).
std::array<void*, 8> vllm_rank_data(const RankBuffers& input, int rank, int world);
// Which of `input`'s alternatives `rank`'s input currently is (its local pointer), or -1.
int vllm_input_slot(const RankBuffers& input, int rank);

}  // namespace arbench
