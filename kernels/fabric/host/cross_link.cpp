#include "kernels/fabric/host/cross_link.hpp"

#include <algorithm>
#include <mutex>
#include <thread>

#include "arbench/core/steady_clock.hpp"

namespace arbench {
namespace {

thread_local const CrossLink* tl_link = nullptr;
thread_local int tl_rank = -1;

std::vector<int> renumber(const std::vector<int>& labels) {
  std::vector<int> seen, out;
  for (int l : labels) {
    auto it = std::find(seen.begin(), seen.end(), l);
    out.push_back(static_cast<int>(it - seen.begin()));
    if (it == seen.end()) seen.push_back(l);
  }
  return out;
}

}  // namespace

CrossLink::CrossLink(std::vector<int> island_of, CrossLinkModel model)
    : island_(renumber(island_of)), model_(model) {}

void CrossLink::add(const void* base, std::size_t bytes, int owner) {
  std::unique_lock lock(mu_);
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  ranges_.push_back({b, b + bytes, owner});
}

void CrossLink::remove(const void* base) {
  std::unique_lock lock(mu_);
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  std::erase_if(ranges_, [b](const Range& r) { return r.begin == b; });
}

int CrossLink::owner_of(const void* addr) const {
  std::shared_lock lock(mu_);
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  for (const Range& r : ranges_)
    if (a >= r.begin && a < r.end) return r.owner;
  return -1;
}

void CrossLink::transfer(int from, int to, std::size_t bytes) const {
  bytes_[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)].fetch_add(bytes, std::memory_order_relaxed);
  const auto latency = static_cast<std::uint64_t>(model_.latency_s * 1e9);
  const auto stream = model_.gbps > 0 ? static_cast<std::uint64_t>(static_cast<double>(bytes) / model_.gbps) : 0u;
  auto& busy = busy_until_[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)];
  const std::uint64_t now = steady_now_ns();
  std::uint64_t was = busy.load(std::memory_order_relaxed), end = 0;
  do {
    // Streaming (the link busy, or idle for less than one latency): queue behind what is in
    // flight. Drained: the first byte of the new burst pays the latency.
    const std::uint64_t start = was + latency >= now ? std::max(was, now) : now + latency;
    end = start + stream;
  } while (!busy.compare_exchange_weak(was, end, std::memory_order_relaxed));
  // Short waits (most transfers are one 16-byte line) spin: a yield on a loaded machine gives
  // the core away for far longer than the line takes. Long ones let the other ranks run.
  constexpr std::uint64_t kSpinNs = 20000;
  for (std::uint64_t t = steady_now_ns(); t < end; t = steady_now_ns())
    if (end - t > kSpinNs) std::this_thread::yield();
}

void CrossLink::charge(const void* addr, std::size_t bytes, bool store) {
  const CrossLink* link = tl_link;
  if (link == nullptr) return;
  const int owner = link->owner_of(addr);
  if (owner < 0 || owner >= static_cast<int>(link->island_.size())) return;
  if (tl_rank < 0 || tl_rank >= static_cast<int>(link->island_.size())) return;
  const int mine = link->island_[static_cast<std::size_t>(tl_rank)];
  const int theirs = link->island_[static_cast<std::size_t>(owner)];
  if (mine == theirs) return;
  if (store)
    link->transfer(mine, theirs, bytes);
  else
    link->transfer(theirs, mine, bytes);
}

CrossLink::Scope::Scope(const CrossLink* link, int rank) : prev_link_(tl_link), prev_rank_(tl_rank) {
  tl_link = link;
  tl_rank = rank;
}

CrossLink::Scope::~Scope() {
  tl_link = prev_link_;
  tl_rank = prev_rank_;
}

std::uint64_t CrossLink::bytes_crossed(int from_rank, int to_rank) const {
  const auto from = static_cast<std::size_t>(island_.at(static_cast<std::size_t>(from_rank)));
  const auto to = static_cast<std::size_t>(island_.at(static_cast<std::size_t>(to_rank)));
  return bytes_[from][to].load(std::memory_order_relaxed);
}

}  // namespace arbench
