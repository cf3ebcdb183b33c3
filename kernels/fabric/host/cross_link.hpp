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
// A transfer is issued when its thread would have issued it had it kept its core
// (SenderLateness): preemption on a loaded machine neither re-pays the latency nor idles the link.
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

// What a rank thread owes the link clock on one direction. A sender that got its core back
// late after its previous transfer arrived (a loaded machine's scheduler tick, 4 ms or more)
// would otherwise find the link drained and pay the latency again on every line, and the link
// would count the scheduler's time as its own. So a transfer that follows at once (within the
// spin budget of the return) is issued that lateness earlier; one after a barrier or a wait for
// a peer was not delayed by it and is owed nothing. The link never starts a transfer before the
// one in flight ends, so the credit is only time the link sat idle.
struct SenderLateness {
  static constexpr std::uint64_t kSpinNs = 20000;  // waits this short spin; longer ones yield
  const void* link = nullptr;  // whose clock (a thread may run ranks of several fabrics)
  std::uint64_t late_ns = 0;     // after the previous transfer's arrival, beyond kSpinNs
  std::uint64_t resumed_ns = 0;  // when the thread got its core back

  std::uint64_t owed(std::uint64_t now) const;          // to take off a transfer issued at `now`
  void returned(std::uint64_t t, std::uint64_t end);  // back at t from a transfer arriving at end
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

  // When a transfer issued at `issued` starts on a link busy until `busy_until` (steady ns):
  // behind it while streaming (idle for at most `latency`), else after the latency.
  static std::uint64_t start_of(std::uint64_t busy_until, std::uint64_t issued, std::uint64_t latency);

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
