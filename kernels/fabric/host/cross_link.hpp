// CrossLink: the link between the host fabric's islands, as a model, for tests
// (HostFabricOptions::link): every transfer that crosses from one island to another waits until
// the model says its bytes have crossed, so a host run behaves like a box whose islands sit
// behind a slow, shared link (a socket interconnect, or a root complex between two switches).
//
// The model, per direction (island A -> island B): one link shared by every rank pair of that
// direction. A transfer of b bytes that finds the link drained (idle for longer than
// `latency_s`) starts after `latency_s`: the first byte of a burst pays the latency; one that
// finds it busy, or idle for less, queues behind what is in flight (posted writes pipeline). It
// ends b / gbps after its start; the accessing thread waits until then (yielding), then does the
// access: what it stores becomes visible when the model says it arrived.
// Which accesses are transfers: the ones a memory policy reports through charge() (CrossLinkMem,
// cross_link_mem.hpp: flags, LL lines and data packs of the protocols that route them through
// the policy), from a thread that runs a rank (the host fabric's rank threads set a Scope;
// sequential twins only: the threads of a block-faithful grid carry none, and are not charged),
// on memory the fabric allocated (registered with add()) that belongs to a rank of another island.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <shared_mutex>
#include <vector>

#include "arbench/fabric.hpp"

namespace arbench {

struct CrossLinkModel {
  double latency_s = 0;  // before the first byte of a transfer that finds the link idle
  double gbps = 0;       // GB/s (1e9 bytes/s) per direction; 0: no limit
  bool active() const { return latency_s > 0 || gbps > 0; }
};

class CrossLink {
 public:
  // island_of[r]: island label of rank r (any integers; equal labels share an island).
  CrossLink(std::vector<int> island_of, CrossLinkModel model);

  // Memory of `owner` at [base, base + bytes): what charge() looks up.
  void add(const void* base, std::size_t bytes, int owner);
  void remove(const void* base);

  // The calling rank thread touches `bytes` at `addr` (store: writes them; else reads them).
  // Waits as the model says when addr belongs to a rank of another island; else returns at once.
  static void charge(const void* addr, std::size_t bytes, bool store);

  // Marks the calling thread as rank `rank` of `link` (null: none) while it lives.
  class Scope {
   public:
    Scope(const CrossLink* link, int rank);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const CrossLink* prev_link_;
    int prev_rank_;
  };

  // Bytes charged so far from the island of rank `from_rank` to that of `to_rank` (tests).
  std::uint64_t bytes_crossed(int from_rank, int to_rank) const;
  const CrossLinkModel& model() const { return model_; }

 private:
  struct Range {
    std::uintptr_t begin, end;
    int owner;
  };
  void transfer(int from, int to, std::size_t bytes) const;
  int owner_of(const void* addr) const;

  std::vector<int> island_;  // by rank: island index 0..
  CrossLinkModel model_;
  mutable std::shared_mutex mu_;
  std::vector<Range> ranges_;
  // [from island][to island]: when the link of that direction is free (steady ns), bytes so far.
  mutable std::array<std::array<std::atomic<std::uint64_t>, kMaxRanks>, kMaxRanks> busy_until_{};
  mutable std::array<std::array<std::atomic<std::uint64_t>, kMaxRanks>, kMaxRanks> bytes_{};
};

}  // namespace arbench
