// IslandVariant: the host-side half shared by island-oneshot, island-twoshot and
// fused-island-oneshot on every fabric (host twins and CUDA kernels alike): checks support (two
// islands or more in Tuning::islands, P2P within each island), picks the cross-island path,
// allocates the island scratch, the mailboxes and the per-rank state, builds each rank's
// arguments, and turns a recorded timeout into a CaseError. Subclasses choose the grid and run
// one op. Header-only so both the plain-C++ twin library and the CUDA kernel library can use it.
//
// The cross-island path: P2P when every pair of ranks in different islands has peer access (the
// mailbox sits in the receiver's island scratch, senders write across), else pinned host memory
// mapped into every GPU (Fabric::alloc_host_mapped: senders write into host memory, the receiver
// polls it), as NCCL's SHM transport does for pairs without P2P.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/island/fused_island.hpp"
#include "arbench/algo/island/island_twoshot.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/variant.hpp"
#include "kernels/adapter_memory.hpp"
#include "kernels/fabric/host/placed_buffers.hpp"
#include "kernels/fused/norm_io.hpp"
#include "kernels/sm_use.hpp"
#include "kernels/variant_entry.hpp"

namespace arbench {

enum class IslandAlgo { oneshot, twoshot, fused_oneshot, fused_twoshot };

// What the one-shot and two-shot island schedules move between ranks (island_traffic.cpp;
// arbench/traffic.hpp); the fused forms move the same (their norm is local).
Traffic island_oneshot_traffic(const TrafficQuery& q);
Traffic island_twoshot_traffic(const TrafficQuery& q);

// By IslandAlgo.
inline constexpr VariantText kIslandText[] = {
    {"island-oneshot", Family::allreduce,
     "follows the PCIe tree: one-shot LL within each island, the whole island sum across to one partner",
     &island_oneshot_traffic},
    {"island-twoshot", Family::allreduce,
     "follows the PCIe tree: reduce-scatter in each island, 1/k shards across, all-gather in the island",
     &island_twoshot_traffic},
    {"fused-island-oneshot", Family::allreduce_rmsnorm,
     "one kernel: island-oneshot, then residual add + RMSNorm of each row", &island_oneshot_traffic},
    {"fused-island-twoshot", Family::allreduce_rmsnorm,
     "one kernel: island-twoshot on each block's rows, then residual add + RMSNorm of each row",
     &island_twoshot_traffic},
};

inline const char* island_algo_name(IslandAlgo a) { return text_of(kIslandText, a).name; }

inline bool is_fused(IslandAlgo a) { return a == IslandAlgo::fused_oneshot || a == IslandAlgo::fused_twoshot; }

enum class CrossPath { p2p, host_memory };
inline const char* cross_path_name(CrossPath p) { return p == CrossPath::p2p ? "p2p" : "host-memory"; }

// The named configuration that crosses through host memory even where the islands have P2P
// (`island-oneshot[host-memory]`): the two paths side by side on one box.
inline constexpr const char* kHostMemoryConfig = "host-memory";

struct IslandOptions {
  std::uint32_t start_epoch = algo::kEpochStart;  // tests start near the 2^32 wrap-around
  bool cross_host_memory = false;                 // cross through host memory even with P2P
};

class IslandVariant : public Variant {
 public:
  IslandVariant(IslandAlgo algo, IslandOptions opt) : algo_(algo), opt_(opt) {}

  bool fused() const { return is_fused(algo_); }
  // island-twoshot's layout (staging, flags across) rather than island-oneshot's (LL lines).
  bool twoshot_layout() const { return algo_ == IslandAlgo::twoshot || algo_ == IslandAlgo::fused_twoshot; }

  // Without the run's islands: what does not depend on them.
  Support supports(const Case& c, const Fabric& f) const override {
    const std::string me = island_algo_name(algo_);
    if (fused() != (c.family == Family::allreduce_rmsnorm))
      return Support::no(me + (fused() ? " is a fused all-reduce + RMSNorm" : " is an all-reduce, not a fused op"));
    if (c.world < 1 || c.world > algo::kLayoutMaxRanks)
      return Support::no("world size " + std::to_string(c.world) + " outside 1.." + std::to_string(algo::kLayoutMaxRanks));
    if (fused() && (c.tokens < 1 || c.hidden < 1)) return Support::no(me + " needs tokens >= 1 and hidden >= 1");
    if (fused() && c.in_place) return Support::no(me + " writes separate outputs (no in-place form)");
    if (std::string why = f.island_memory_unsupported_reason(); !why.empty()) return Support::no(why);
    return Support::yes();
  }

  Support supports_with(const Case& c, const Fabric& f, const Tuning& t) const override {
    Support s = supports(c, f);
    if (!s.ok) return s;
    const auto it = t.islands.find(c.world);
    if (it == t.islands.end())
      return Support::no("no islands known for " + std::to_string(c.world) +
                         " ranks (give --islands, e.g. --islands 0-3,4-7; `arbench topo` shows the box's)");
    if (const std::string why = algo::island_map_problem(it->second, c.world); !why.empty()) return Support::no(why);
    const algo::IslandMap m = algo::make_island_map(it->second, c.world);
    if (m.islands < 2)
      return Support::no("the " + std::to_string(c.world) + " ranks form one island (" +
                         algo::islands_text(it->second) + "): nothing to cross; the island variants need two or more");
    for (int a = 0; a < c.world; ++a)
      for (int b = 0; b < c.world; ++b)
        if (a != b && algo::island_of(m, a) == algo::island_of(m, b) && !f.reaches(a, b))
          return Support::no("ranks " + std::to_string(a) + " and " + std::to_string(b) + " share an island (" +
                             algo::islands_text(it->second) + ") but have no P2P access; check --islands against "
                             "`arbench topo`'s islands");
    return Support::yes();
  }

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& /*f*/, const Tuning& t) const override {
    const auto it = t.islands.find(c.world);
    const int islands = it == t.islands.end() ? 2 : algo::make_island_map(it->second, c.world).islands;
    const Sizes z = sizes(packs_of(c), c.world, islands);
    return algo::mailbox_offset(z.island) + z.mailbox + sizeof(algo::RankState);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    const std::string me = island_algo_name(algo_);
    if (const Support s = supports_with(c, f, t); !s.ok) throw CaseError(me + ": " + s.reason);
    if (b.in == nullptr) throw CaseError(me + ": no input buffer");
    if (fused() && !has_norm_buffers(b))
      throw CaseError(me + ": the workload did not provide x, residual, weight, norm_out and residual_out");
    fabric_ = &f;
    dtype_ = c.dtype;
    world_ = f.world();
    bufs_ = b;
    if (!fused() && bufs_.out == nullptr) bufs_.out = b.in;
    tokens_ = c.tokens;
    hidden_ = c.hidden;
    eps_ = static_cast<float>(t.eps);
    n_ = fused() ? static_cast<std::size_t>(c.tokens) * static_cast<std::size_t>(c.hidden) : c.elements();
    packs_ = packs_of(c);
    timeout_s_ = f.timeout_s();
    labels_ = t.islands.at(c.world);
    map_ = algo::make_island_map(labels_, world_);
    for (int r = 0; r < world_; ++r)
      for (const RankBuffers* buf : {bufs_.in, bufs_.out, bufs_.residual, bufs_.weight, bufs_.norm_out, bufs_.residual_out})
        if (buf != nullptr && f.drives(r) && !algo::is_pack_aligned(buf->local(r)))
          throw CaseError(me + ": rank " + std::to_string(r) +
                          "'s buffers are not 16-byte aligned; allocate them with Fabric::alloc");
    path_ = opt_.cross_host_memory ? CrossPath::host_memory : CrossPath::p2p;
    for (int a = 0; a < world_; ++a)
      for (int p = 0; p < world_; ++p)
        if (!f.reaches(a, p)) path_ = CrossPath::host_memory;
    grid_work_ = fused() ? static_cast<std::size_t>(c.tokens) : packs_;
    requested_blocks_ = t.blocks;
    blocks_ = choose_blocks(f, t, grid_work_);
    sizes_ = sizes(packs_, world_, map_.islands);
    const std::size_t scratch = path_ == CrossPath::p2p ? algo::mailbox_offset(sizes_.island) + sizes_.mailbox : sizes_.island;
    scratch_ = f.alloc_island(scratch);
    if (path_ == CrossPath::host_memory) mailbox_ = f.alloc_host_mapped(sizes_.mailbox);
    init_state(f);
  }

  // Throws the first recorded timeout (lowest rank), naming rank, block, peer and flag.
  void check_errors() override {
    if (state_) throw_first_timeout(*fabric_, *state_, island_algo_name(algo_), timeout_s_);
  }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    std::vector<std::pair<std::string, std::string>> s{{"blocks", std::to_string(blocks_)},
                                                       {"threads", std::to_string(threads())},
                                                       {"islands", algo::islands_text(labels_)},
                                                       {"cross_path", cross_path_name(path_)},
                                                       {"scratch_bytes_per_rank", std::to_string(sizes_.island)},
                                                       {"mailbox_bytes_per_rank", std::to_string(sizes_.mailbox)}};
    // Where the host-memory mailboxes sit (the GPU fabrics: each rank's NUMA node).
    if (path_ == CrossPath::host_memory)
      for (auto& kv : placement_of(mailbox_.get())) s.push_back(std::move(kv));
    return s;
  }

  std::vector<PhaseMark> phase_marks() const override {
    switch (algo_) {
      case IslandAlgo::oneshot: return {std::begin(algo::kIslandOneshotMarks), std::end(algo::kIslandOneshotMarks)};
      case IslandAlgo::twoshot: return {std::begin(algo::kIslandTwoshotMarks), std::end(algo::kIslandTwoshotMarks)};
      case IslandAlgo::fused_oneshot: return {std::begin(algo::kFusedIslandMarks), std::end(algo::kFusedIslandMarks)};
      case IslandAlgo::fused_twoshot:
        return {std::begin(algo::kFusedIslandTwoshotMarks), std::end(algo::kFusedIslandTwoshotMarks)};
    }
    return {};
  }
  void record_phases(RankBuffers* rec) override { phases_ = rec; }

  // No peer ever touches the case's buffers (peers meet in the variant's own memory).
  Placement buffer_placement() const override { return Placement::local; }

  int blocks() const { return blocks_; }
  CrossPath cross_path() const { return path_; }

  SmUse sms(const Case& /*c*/, const Fabric& f) const override {
    return grid_sm_use(f, blocks_, [&](int sms) { return grid_for(sms, 1, requested_blocks_, grid_work_); });
  }

 protected:
  // Grid for `work` items: packs (all-reduce) or token rows (fused).
  virtual int choose_blocks(const Fabric& f, const Tuning& t, std::size_t work) const = 0;
  // The CUDA kernels' grid for `work` on a device of `sms` SMs shared by `ranks_per_device` ranks
  // (--blocks: `requested`): what the GPU variant launches and what sms() reports.
  int grid_for(int sms, int ranks_per_device, int requested, std::size_t work) const {
    return fused() ? algo::FusedLaunchPolicy::blocks(static_cast<int>(work), sms, ranks_per_device, requested)
                   : algo::SymmLaunchPolicy::blocks(work, sms, ranks_per_device, requested);
  }
  virtual int threads() const = 0;

  algo::IslandArgs island_args(int rank) const {
    algo::IslandArgs a;
    a.in = bufs_.in->local(rank);
    a.out = fused() ? nullptr : bufs_.out->local(rank);
    a.n = n_;
    a.packs = packs_;
    for (int p = 0; p < world_; ++p) {
      if (fabric_->reaches(rank, p)) a.scratch[p] = p == rank ? scratch_->local(rank) : scratch_->peer(rank, p);
      if (path_ == CrossPath::host_memory)
        a.mailbox[p] = p == rank ? mailbox_->local(rank) : mailbox_->peer(rank, p);
      else if (a.scratch[p] != nullptr)
        a.mailbox[p] = static_cast<unsigned char*>(a.scratch[p]) + algo::mailbox_offset(sizes_.island);
    }
    a.state = static_cast<algo::RankState*>(state_->local(rank));
    a.timeout_ns = timeout_ns(timeout_s_);
    a.phases = phase_record(phases_, rank);
    a.map = map_;
    a.sources = algo::cross_sources(map_, rank);
    a.rank = rank;
    a.world = world_;
    return a;
  }

  algo::FusedIslandArgs fused_args(int rank) const {
    algo::FusedIslandArgs a;
    a.s = island_args(rank);
    a.io = norm_io_of(bufs_, rank, hidden_, eps_);
    a.tokens = tokens_;
    return a;
  }

  IslandAlgo algo_;
  IslandOptions opt_;
  DType dtype_ = DType::bf16;

 private:
  struct Sizes {
    std::size_t island = 0, mailbox = 0;
  };

  std::size_t packs_of(const Case& c) const {
    return fused() ? static_cast<std::size_t>(c.tokens) * algo::row_packs(c.hidden, c.dtype)
                   : algo::pack_count(c.elements(), c.dtype);
  }

  Sizes sizes(std::size_t packs, int world, int islands) const {
    if (twoshot_layout()) return {algo::twoshot_island_bytes(packs), algo::twoshot_mailbox_bytes(packs, islands)};
    return {algo::oneshot_island_bytes(packs, world), algo::oneshot_mailbox_bytes(packs, islands)};
  }

  // Epoch counters, flags and LL lines start "just before" start_epoch.
  void init_state(Fabric& f) {
    state_ = start_state(f, opt_.start_epoch, &algo::RankState::epoch);
    const std::uint32_t fill = algo::flag_fill(opt_.start_epoch);
    if (fill == 0u) return;
    const bool ll = !twoshot_layout();
    std::vector<unsigned char> island(sizes_.island, 0), mailbox(sizes_.mailbox, 0);
    fill_words(island.data(), algo::kFlagWords, fill);
    if (ll) {
      fill_lines(island.data() + algo::kDataOffset, island.size() - algo::kDataOffset, fill);
      fill_lines(mailbox.data(), mailbox.size(), fill);
    } else {
      fill_words(mailbox.data(), algo::kCrossFlagWords, fill);
    }
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;
      f.upload(r, scratch_->local(r), island.data(), island.size());
      void* mb = path_ == CrossPath::host_memory
                     ? mailbox_->local(r)
                     : static_cast<unsigned char*>(scratch_->local(r)) + algo::mailbox_offset(sizes_.island);
      f.upload(r, mb, mailbox.data(), mailbox.size());
    }
  }
  static void fill_words(unsigned char* at, std::size_t words, std::uint32_t v) {
    for (std::size_t i = 0; i < words; ++i) std::memcpy(at + i * sizeof v, &v, sizeof v);
  }
  static void fill_lines(unsigned char* at, std::size_t bytes, std::uint32_t fill) {
    const algo::LlLine line = algo::ll_fill(fill);
    for (std::size_t i = 0; i + sizeof line <= bytes; i += sizeof line) std::memcpy(at + i, &line, sizeof line);
  }

  Fabric* fabric_ = nullptr;
  int world_ = 1, tokens_ = 0, hidden_ = 0, blocks_ = 1, requested_blocks_ = 0;
  std::size_t grid_work_ = 0;
  float eps_ = 1e-6f;
  std::size_t n_ = 0, packs_ = 0;
  double timeout_s_ = 10.0;
  OpBuffers bufs_;
  std::vector<int> labels_;
  algo::IslandMap map_;
  CrossPath path_ = CrossPath::p2p;
  Sizes sizes_;
  std::unique_ptr<RankBuffers> scratch_, mailbox_, state_;
  RankBuffers* phases_ = nullptr;
};

}  // namespace arbench
