#include "kernels/fabric/host/cross_link.hpp"

#include <algorithm>
#include <array>
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

namespace {
thread_local std::array<std::array<SenderLateness, kMaxRanks>, kMaxRanks> tl_late{};
}  // namespace

std::uint64_t SenderLateness::owed(std::uint64_t now) const {
  return now - resumed_ns <= kSpinNs ? std::min(late_ns, now) : 0;
}

void SenderLateness::returned(std::uint64_t t, std::uint64_t end) {
  late_ns = t > end && t - end > kSpinNs ? t - end : 0;
  resumed_ns = t;
}

std::uint64_t CrossLink::start_of(std::uint64_t busy_until, std::uint64_t issued, std::uint64_t latency) {
  // Streaming (the link busy, or idle for less than one latency): queue behind what is in
  // flight. Drained: the first byte of the new burst pays the latency.
  return busy_until + latency >= issued ? std::max(busy_until, issued) : issued + latency;
}

void CrossLink::transfer(int from, int to, std::size_t bytes) const {
  bytes_[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)].fetch_add(bytes, std::memory_order_relaxed);
  const auto latency = static_cast<std::uint64_t>(model_.latency_s * 1e9);
  const auto stream = model_.gbps > 0 ? static_cast<std::uint64_t>(static_cast<double>(bytes) / model_.gbps) : 0u;
  auto& busy = busy_until_[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)];
  SenderLateness& mine = tl_late[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)];
  if (mine.link != this) mine = SenderLateness{this};
  const std::uint64_t now = steady_now_ns();
  // Issued when this thread would have issued it had it kept its core (SenderLateness).
  const std::uint64_t issued = now - mine.owed(now);
  std::uint64_t was = busy.load(std::memory_order_relaxed), end = 0;
  do {
    end = start_of(was, issued, latency) + stream;
  } while (!busy.compare_exchange_weak(was, end, std::memory_order_relaxed));
  std::uint64_t t = steady_now_ns();
  for (; t < end; t = steady_now_ns())
    if (end - t > SenderLateness::kSpinNs) std::this_thread::yield();  // long waits let the other ranks run
  mine.returned(t, end);
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
