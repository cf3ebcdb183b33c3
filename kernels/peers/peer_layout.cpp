#include "kernels/peers/peer_layout.hpp"

#include <algorithm>

#include "kernels/peers/peer_policy.hpp"

namespace arbench {
namespace {

std::size_t round16(std::size_t n) { return (n + 15) / 16 * 16; }

}  // namespace

std::array<std::int64_t, kMaxRanks> pcie_ipc_slab_table(const RankBuffers& slab, int rank, int world) {
  std::array<std::int64_t, kMaxRanks> t{};
  for (int p = 0; p < world; ++p)
    t[std::size_t(p)] = reinterpret_cast<std::int64_t>(p == rank ? slab.local(rank) : slab.peer(rank, p));
  return t;
}

FusionSizes fusion_sizes(int world, int tokens, int hidden, int elem) {
  const std::size_t row = std::size_t(tokens) * std::size_t(hidden);
  FusionSizes s;
  s.buffer = round16(std::size_t(world) * row * 2);
  s.flags = round16(std::size_t(world) * std::size_t(kFusionBarrierFlags) * sizeof(std::int32_t));
  s.lamport_comm = std::min(std::size_t(world) * row * std::size_t(elem), kFusionMaxCommBytes);
  s.lamport = round16(3 * s.lamport_comm);
  return s;
}

std::array<std::int32_t, 5> fusion_flag_word(const FusionSizes& s) {
  return {0, 0, 0, static_cast<std::int32_t>(s.lamport_comm), 0};
}

std::vector<void*> fusion_workspace_table(const RankBuffers& buffer, const RankBuffers& flags,
                                          const RankBuffers& lamport, void* flag_word, int rank, int world) {
  std::vector<void*> t;
  t.reserve(std::size_t(3 * world + 1));
  for (const RankBuffers* b : {&buffer, &flags, &lamport})
    for (int p = 0; p < world; ++p) t.push_back(p == rank ? b->local(rank) : b->peer(rank, p));
  t.push_back(flag_word);
  return t;
}

std::size_t vllm_tmp_bytes(std::size_t bytes, int world) {
  const std::size_t packs = bytes / 16;
  return (packs / std::size_t(world) + packs % std::size_t(world)) * 16;
}

std::array<void*, 8> vllm_signal_table(const RankBuffers& meta, int rank, int world) {
  std::array<void*, 8> t{};
  for (int p = 0; p < world; ++p) t[std::size_t(p)] = p == rank ? meta.local(rank) : meta.peer(rank, p);
  return t;
}

std::array<void*, 8> vllm_rank_data(const RankBuffers& input, int rank, int world) {
  std::array<void*, 8> t{};
  for (int p = 0; p < world; ++p) t[std::size_t(p)] = p == rank ? input.local(rank) : input.peer(rank, p);
  return t;
}

int vllm_input_slot(const RankBuffers& input, int rank) {
  const std::vector<const RankBuffers*> alts = input.alternatives();
  for (std::size_t i = 0; i < alts.size(); ++i)
    if (alts[i]->local(rank) == input.local(rank)) return int(i);
  return -1;
}

}  // namespace arbench
