#include "kernels/fabric/host/host_fabric.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/host/host_op.hpp"
#include "kernels/fabric/host/peer_check/peer_check.hpp"

namespace arbench {
namespace {

using Clock = std::chrono::steady_clock;

// Host buffers: 256-byte aligned like cudaMalloc, zero-filled. Symmetric ones are plain host
// memory every thread can address, so peer(r, p) is simply rank p's buffer; island buffers
// refuse the pairs the fabric says cannot reach each other (`reach`), as a GPU without P2P
// would. Registered with the cross-island link, when there is one, so accesses can be charged.
class HostBuffers final : public RankBuffers {
 public:
  using Reach = std::function<bool(int, int)>;
  HostBuffers(int world, std::size_t bytes, bool symmetric, BrokenPair broken, Reach reach = {},
              CrossLink* link = nullptr)
      : bytes_(bytes), symmetric_(symmetric), broken_(broken), reach_(std::move(reach)), link_(link) {
    const bool sinks = symmetric && broken.a >= 0 && broken.a < world && broken.b < world;
    for (int r = 0; r < world; ++r) {
      ptrs_.push_back(zeroed(bytes));
      sinks_.push_back(sinks ? zeroed(bytes) : nullptr);  // where the broken pair's traffic goes
      if (link_ != nullptr) link_->add(ptrs_.back(), std::max<std::size_t>(bytes, 1), r);
    }
  }
  ~HostBuffers() override {
    for (void* p : ptrs_) {
      if (link_ != nullptr) link_->remove(p);
      ::operator delete(p, std::align_val_t{256});
    }
    for (void* p : sinks_)
      if (p) ::operator delete(p, std::align_val_t{256});
  }
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return symmetric_; }
  void* local(int rank) const override { return ptrs_.at(rank); }
  void* peer(int rank, int peer) const override {
    if (!symmetric_) throw CaseError("peer() asked of a local (non-symmetric) host buffer");
    if (sinks_.at(peer) != nullptr && broken_.covers(rank, peer)) return sinks_.at(peer);
    if (reach_ && !reach_(rank, peer))
      throw CaseError("host fabric: rank " + std::to_string(rank) + " cannot reach rank " + std::to_string(peer) +
                      "'s island memory (no P2P between their islands)");
    return ptrs_.at(peer);
  }

 private:
  static void* zeroed(std::size_t bytes) {
    void* p = ::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{256});
    std::memset(p, 0, std::max<std::size_t>(bytes, 1));
    return p;
  }
  std::size_t bytes_;
  bool symmetric_;
  BrokenPair broken_;
  Reach reach_;
  CrossLink* link_;
  std::vector<void*> ptrs_, sinks_;
};

int checked_world(int world) {
  if (world < 1 || world > kMaxRanks)
    throw UsageError("host fabric: " + std::to_string(world) + " ranks asked; 1 to " + std::to_string(kMaxRanks) +
                     " are supported");
  return world;
}

int checked_options(const HostFabricOptions& opt, int world) {
  if (!opt.island_of.empty() && static_cast<int>(opt.island_of.size()) != world)
    throw UsageError("host fabric: " + std::to_string(opt.island_of.size()) + " island labels for " +
                     std::to_string(world) + " ranks");
  return world;
}

}  // namespace

// The functional peer check's bound on the host: the writes are plain stores, so any bound
// works; a short one keeps a planted broken pair cheap.
constexpr double kHostPeerCheckBound_s = 0.05;

HostFabric::HostFabric(int world, double timeout_s, HostFabricOptions opt)
    : world_(checked_options(opt, checked_world(world))),
      timeout_s_(timeout_s),
      opt_(std::move(opt)),
      link_(opt_.link.active() && !opt_.island_of.empty() ? std::make_unique<CrossLink>(opt_.island_of, opt_.link)
                                                         : nullptr),
      start_line_(world_),
      ranks_(world_) {
  const auto probe_memory = alloc(kPeerProbeBytes, Placement::symmetric);
  HostPeerProbe probe(*probe_memory);
  peer_access_ = check_peer_access(probe, world_, [](int) { return true; }, {}, solo_world(), kHostPeerCheckBound_s,
                                   1, "host memory, one CPU thread per rank", "rank");
}

bool HostFabric::same_island(int a, int b) const {
  return opt_.island_of.empty() || opt_.island_of.at(static_cast<std::size_t>(a)) == opt_.island_of.at(static_cast<std::size_t>(b));
}

bool HostFabric::reaches(int rank, int peer) const {
  // A pair the functional peer check found broken is no path, whatever its islands.
  if (peer_access_.is_broken(rank, peer)) return false;
  return opt_.cross_island_p2p || same_island(rank, peer);
}

std::string HostFabric::symmetric_unsupported_reason() const {
  // A broken pair first: its reason says what to check (ACS, IOMMU, NCCL_P2P_DISABLE).
  if (std::string why = broken_peer_reason(peer_access_); !why.empty()) return why;
  for (int a = 0; a < world_; ++a)
    for (int b = 0; b < world_; ++b)
      if (!reaches(a, b))
        return "rank " + std::to_string(a) + " cannot reach rank " + std::to_string(b) +
               " (host fabric with islands and no P2P between them, as a box without cross-socket P2P)";
  return {};
}

std::unique_ptr<RankBuffers> HostFabric::alloc_island(std::size_t bytes) {
  return std::make_unique<HostBuffers>(world_, bytes, true, opt_.broken,
                                       [this](int r, int p) { return reaches(r, p); }, link_.get());
}

std::unique_ptr<RankBuffers> HostFabric::alloc_host_mapped(std::size_t bytes) {
  return std::make_unique<HostBuffers>(world_, bytes, true, BrokenPair{}, HostBuffers::Reach{}, link_.get());
}

HostFabric::~HostFabric() = default;

std::string HostFabric::describe() const {
  const auto broken = peer_access_.broken();
  return std::to_string(world_) + " CPU threads (host backend: CPU timings)" +
         (broken.empty() ? std::string()
                         : "; peer check: " + std::to_string(broken.size()) + " rank pairs reported but broken");
}

std::unique_ptr<RankBuffers> HostFabric::alloc(std::size_t bytes, Placement placement) {
  return std::make_unique<HostBuffers>(world_, bytes, placement == Placement::symmetric, opt_.broken,
                                       HostBuffers::Reach{}, link_.get());
}

void HostFabric::upload(int, void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void HostFabric::download(int, void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }

void HostFabric::run_on_workers(const std::function<void(int)>& job) {
  // Twins bound every wait by timeout_s(); this outer bound only catches a twin that forgot.
  // A stuck CPU thread cannot be cancelled, so the process says why and stops.
  const auto bound = std::chrono::duration<double>(timeout_s_ * 4 + 60.0);
  const auto as_rank = [&](int rank) {
    const CrossLink::Scope scope(link_.get(), rank);  // the link charges this thread as `rank`
    job(rank);
  };
  ranks_.run(as_rank, bound, [&](int running) {
    std::fprintf(stderr,
                 "arbench: host fabric: %d of %d ranks still running after %.0f s; a host twin "
                 "is not bounding its waits. Aborting.\n",
                 running, world_, bound.count());
    std::_Exit(kExitFailure);
  });
}

void HostFabric::keep_in_step(int rounds, const std::function<void(int)>& round) {
  // Every rank passes the start line of every round, even after a failure, so a failing
  // rank never leaves its peers waiting at the barrier; the first error is rethrown at the end.
  std::exception_ptr err;
  for (int i = 0; i < rounds; ++i) {
    start_line_.arrive_and_wait();  // the gate: all ranks start each round together
    if (err) continue;
    try {
      round(i);
    } catch (...) {
      err = std::current_exception();
    }
  }
  if (err) std::rethrow_exception(err);
}

void HostFabric::flush_caches() {
  flush_.prepare();  // before the threads share it
  run_on_workers([&](int rank) { flush_.write_share(rank, world_); });
}

void HostFabric::run(const RankOp& op) {
  run_on_workers([&](int rank) { run_host_op(op, rank); });
}

IsolatedTimes HostFabric::time_isolated(const RankOp& op, int samples) {
  const std::size_t cells = static_cast<std::size_t>(samples) * world_;
  std::vector<double> per_rank(cells, 0.0), released(cells, 0.0);
  run_on_workers([&](int rank) {
    keep_in_step(samples, [&](int s) {
      auto t0 = Clock::now();
      run_host_op(op, rank);
      auto t1 = Clock::now();
      const std::size_t at = static_cast<std::size_t>(s) * world_ + rank;
      per_rank[at] = std::chrono::duration<double>(t1 - t0).count();
      released[at] = steady_seconds(t0);
    });
  });
  IsolatedTimes out;
  for (int s = 0; s < samples; ++s) {
    const auto first = static_cast<std::ptrdiff_t>(s) * world_;
    out.samples.push_back(*std::max_element(per_rank.begin() + first, per_rank.begin() + first + world_));
    const auto [lo, hi] = std::minmax_element(released.begin() + first, released.begin() + first + world_);
    out.start_skew.push_back(*hi - *lo);
  }
  return out;  // the start line (std::barrier) never gives up: nothing is discarded
}

double HostFabric::time_pipelined(const RankOp& op, int ops, int reps) {
  std::vector<double> per_rank(static_cast<std::size_t>(reps) * world_, 0.0);
  run_on_workers([&](int rank) {
    keep_in_step(reps, [&](int r) {
      auto t0 = Clock::now();
      for (int i = 0; i < ops; ++i) run_host_op(op, rank);
      auto t1 = Clock::now();
      per_rank[static_cast<std::size_t>(r) * world_ + rank] = std::chrono::duration<double>(t1 - t0).count();
    });
  });
  std::vector<double> per_rep(reps);
  for (int r = 0; r < reps; ++r) {
    auto first = per_rank.begin() + static_cast<std::ptrdiff_t>(r) * world_;
    per_rep[r] = *std::max_element(first, first + world_) / ops;
  }
  return upper_median(per_rep);
}

}  // namespace arbench
