// CeVariant: the host-side half of the copy-engine variants (ce-twoshot, ce-ring, ce-island), shared by the
// host twin (kernels/ce/ce_twin.cpp) and the GPU variant (kernels/ce/ce_gpu.cu): support, the
// geometry and configuration, staging and flag memory, every rank's program
// (include/arbench/algo/ce/) and its pointers, and the error records -> CaseError. Subclasses
// only execute a rank's program: on threads (the twin) or on CUDA streams. Header-only so both
// the plain-C++ twin library and the CUDA kernel library can use it.
#pragma once

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/ce/ce_island.hpp"
#include "arbench/algo/ce/ce_policy.hpp"
#include "arbench/algo/ce/ce_reduce.hpp"
#include "arbench/algo/ce/ce_ring.hpp"
#include "arbench/algo/ce/ce_twoshot.hpp"
#include "arbench/algo/ring/ring_order.hpp"
#include "arbench/algo/wait.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/variant.hpp"
#include "kernels/adapter_memory.hpp"
#include "kernels/ce/ce_entry.hpp"
#include "kernels/ring/ring_order_choice.hpp"
#include "kernels/sm_use.hpp"
#include "kernels/variant_entry.hpp"

namespace arbench {

// One op of a program with its pointers (resolved when the op is launched: the harness's inputs
// alternate between two sets, bench/workload/alternating.hpp).
struct CeStep {
  algo::CeOpKind kind = algo::CeOpKind::copy;
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
  std::uint32_t* flag = nullptr;
  std::uint32_t value = 0;
  int event = 0;
  int writer = 0;
  int index = 0;  // the flag's word (for the error message)
  algo::CeReduceArgs reduce{};
};
using CeStreams = std::vector<std::vector<CeStep>>;

// The error record's index of a wait for one of the rank's own events (not a flag word).
inline constexpr std::uint32_t kEventIndex = 0xffffffffu;

class CeVariant : public Variant {
 public:
  CeVariant(CeAlgo algo, CeOptions opt) : algo_(algo), opt_(opt) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (c.family != Family::allreduce) return Support::no(std::string(label()) + " is an all-reduce, not a fused op");
    if (std::string why = f.symmetric_unsupported_reason(); !why.empty())
      return Support::no(std::string(label()) + " copies into peers' staging and outputs, which needs symmetric memory: " + why);
    if (c.world < 1 || c.world > kMaxRanks)
      return Support::no("world size " + std::to_string(c.world) + " outside 1.." + std::to_string(kMaxRanks));
    return Support::yes();
  }

  // ce-island: the run's islands (Tuning::islands) must be two or more, of one size.
  Support supports_with(const Case& c, const Fabric& f, const Tuning& t) const override {
    Support s = supports(c, f);
    if (!s.ok || algo_ != CeAlgo::island) return s;
    const auto it = t.islands.find(c.world);
    if (it == t.islands.end())
      return Support::no("no islands known for " + std::to_string(c.world) +
                         " ranks (give --islands, e.g. --islands 0-3,4-7; `arbench topo` shows the box's)");
    if (std::string why = algo::ce_island_problem(it->second, c.world); !why.empty()) return Support::no(why);
    return Support::yes();
  }

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& f, const Tuning& t) const override {
    const auto it = t.islands.find(c.world);
    const int k = it == t.islands.end() ? 1 : island_size_of(it->second, c.world);
    return staging_bytes(algo::ce_geometry(f.world(), c.dtype, c.bytes, opt_.config, rate_of(t, c.world)), k) + flag_bytes() +
           sizeof(algo::ErrorRecord);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    if (b.in == nullptr) throw CaseError(std::string(label()) + ": no input buffer");
    fabric_ = &f;
    world_ = f.world();
    timeout_s_ = f.timeout_s();
    rate_gbps_ = rate_of(t, c.world);
    g_ = algo::ce_geometry(world_, c.dtype, c.bytes, opt_.config, rate_gbps_);
    if (std::string why = algo::ce_geometry_problem(g_); !why.empty()) throw CaseError(std::string(label()) + ": " + why);
    io_ = aligned_io(b, world_, label());
    if (algo_ == CeAlgo::ring) choose_order(t);
    int k = 1;
    if (algo_ == CeAlgo::island) {
      if (const Support s = supports_with(c, f, t); !s.ok) throw CaseError(std::string(label()) + ": " + s.reason);
      labels_ = t.islands.at(c.world);
      k = island_size_of(labels_, world_);
    }
    const std::size_t staging = staging_bytes(g_, k);
    staging_ = f.alloc(staging > 0 ? staging : algo::kPackBytes, Placement::symmetric);
    flags_ = f.alloc(flag_bytes(), Placement::symmetric);
    errors_ = f.alloc(sizeof(algo::ErrorRecord), Placement::local);
    programs_.assign(static_cast<std::size_t>(world_), {});
    for (int r = 0; r < world_; ++r)
      if (f.drives(r)) programs_[static_cast<std::size_t>(r)] = program_of(r);
  }

  // Throws a recorded timeout. One lost rank stalls ranks that wait for ranks that wait for it, so
  // the record shown is the root cause where this process sees it: a wait for a peer that itself
  // recorded nothing (the rank really missing), else the lowest rank's. In a run of several
  // processes a process sees its own rank's record only.
  void check_errors() override {
    if (!errors_) return;
    std::vector<algo::ErrorRecord> recs(static_cast<std::size_t>(world_));
    for (int r = 0; r < world_; ++r)
      if (fabric_->drives(r))  // another process checks its own
        fabric_->download(r, &recs[static_cast<std::size_t>(r)], errors_->local(r), sizeof(algo::ErrorRecord));
    if (const algo::ErrorRecord* e = root_cause_record(recs)) throw CaseError(describe(*e));
  }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    std::vector<std::pair<std::string, std::string>> s = {
        {"ce_chunk", std::to_string(g_.chunk_packs * algo::kPackBytes)},
        {"ce_chunk_source", chunk_source_text()},
        {"ce_slots", std::to_string(g_.slots)},
        {"ce_copy_streams", std::to_string(g_.copy_streams)},
        {"staging_bytes_per_rank", std::to_string(staging_bytes(g_, island_size_of(labels_, world_)))}};
    if (algo_ == CeAlgo::ring) {
      s.emplace_back("ring_order", algo::ring_order_text(order_));
      s.emplace_back("ring_order_source", order_source_);
    }
    if (algo_ == CeAlgo::island) s.emplace_back("islands", algo::islands_text(labels_));
    return s;
  }

  // The SMs the op takes: the widest reduce kernel of this rank's program (CePolicy::reduce_blocks,
  // the grid ce_reduce.cu launches); every byte between GPUs moves on copy engines, no SM.
  SmUse sms(const Case& /*c*/, const Fabric& f) const override {
    int widest = 0;
    for (int r = 0; r < world_ && widest == 0; ++r) {
      if (!f.drives(r)) continue;
      for (const auto& stream : program(r).streams)
        for (const algo::CeOp& o : stream)
          if (o.kind == algo::CeOpKind::reduce)
            widest = std::max(widest, algo::CePolicy::reduce_blocks((o.bytes + algo::kPackBytes - 1) / algo::kPackBytes));
    }
    return grid_sm_use(f, widest, [&](int /*sms*/) { return widest; });
  }

  const algo::CeGeometry& geometry() const { return g_; }
  const algo::CeProgram& program(int rank) const { return programs_.at(static_cast<std::size_t>(rank)); }
  const char* label() const { return ce_algo_name(algo_); }
  // `rank`'s flag words as they are now (tests: every flag is back to 0 between ops).
  std::vector<std::uint32_t> flag_words(int rank) const {
    std::vector<std::uint32_t> w(algo::kCeFlagWords);
    fabric_->download(rank, w.data(), flags_->local(rank), flag_bytes());
    return w;
  }

 protected:
  // The ring order without --ring-order or a topology order: 0..N-1 (the GPU variant: PCI bus).
  virtual std::vector<int> default_order(const Fabric& /*f*/) const { return algo::ring_order_or_default({}, world_); }

  // `rank`'s program with the pointers of this op.
  CeStreams steps_for(int rank) const {
    const algo::CeProgram& p = program(rank);
    CeStreams out(p.streams.size());
    for (std::size_t s = 0; s < p.streams.size(); ++s) {
      out[s].reserve(p.streams[s].size());
      for (const algo::CeOp& o : p.streams[s]) out[s].push_back(step_of(rank, o));
    }
    return out;
  }
  algo::ErrorRecord* error_record(int rank) const { return static_cast<algo::ErrorRecord*>(errors_->local(rank)); }
  int events(int rank) const { return program(rank).events; }

  CeAlgo algo_;
  CeOptions opt_;
  algo::CeGeometry g_{};
  int world_ = 1;
  double timeout_s_ = 10.0;
  double rate_gbps_ = 0;  // the copy-engine rate the chunk followed (0: none)

 private:
  static std::size_t flag_bytes() { return algo::kCeFlagWords * sizeof(std::uint32_t); }
  double rate_of(const Tuning& t, int world) const {
    const auto it = t.copy_engine_gbps.find(world);
    if (opt_.ignore_rates) return 0.0;
    return it == t.copy_engine_gbps.end() ? 0.0 : it->second;
  }
  std::string chunk_source_text() const {
    switch (algo::CePolicy::chunk_source(opt_.config.chunk, rate_gbps_)) {
      case algo::CeChunkSource::configuration: return "configuration";
      case algo::CeChunkSource::rates: {
        char buf[160];
        std::snprintf(buf, sizeof buf, "copy-engine rate %.3g GB/s per flow (pattern rates): a chunk's copy >= %g x %g us",
                      rate_gbps_, algo::CePolicy::kCopyOverOverhead, algo::CePolicy::kChunkOverheadUs);
        return buf;
      }
      case algo::CeChunkSource::fixed: break;
    }
    return "fixed policy (no copy-engine rate known)";
  }
  // `k`: ranks per island (ce-island).
  std::size_t staging_bytes(const algo::CeGeometry& g, int k) const {
    if (g.world == 1) return 0;
    switch (algo_) {
      case CeAlgo::ring: return algo::ce_ring_staging_bytes(g);
      case CeAlgo::island: return algo::ce_island_staging_bytes(g, k);
      case CeAlgo::twoshot: break;
    }
    return algo::ce_twoshot_staging_bytes(g);
  }
  // Ranks per island of `labels` (1 when they are not a valid map: the other algorithms).
  static int island_size_of(const std::vector<int>& labels, int world) {
    if (!algo::island_map_problem(labels, world).empty()) return 1;
    const algo::IslandMap m = algo::make_island_map(labels, world);
    return algo::island_size(m, 0);
  }

  void choose_order(const Tuning& t) {
    RingOrderChoice ro = choose_ring_order(t, world_, label(), [&] { return default_order(*fabric_); },
                                           "rank order or PCI bus order");
    order_ = std::move(ro.order);
    order_source_ = std::move(ro.source);
  }

  algo::CeProgram program_of(int r) const {
    switch (algo_) {
      case CeAlgo::ring: return algo::ce_ring_program(g_, order_, r);
      case CeAlgo::island: return algo::ce_island_program(g_, labels_, r);
      case CeAlgo::twoshot: break;
    }
    return algo::ce_twoshot_program(g_, r);
  }

  void* at(int rank, const algo::CeLoc& l) const {
    const RankBuffers* b = l.buf == algo::CeBuf::in ? io_.in : l.buf == algo::CeBuf::out ? io_.out : staging_.get();
    void* base = l.rank == rank ? b->local(rank) : b->peer(rank, l.rank);
    return static_cast<std::byte*>(base) + l.offset;
  }

  CeStep step_of(int rank, const algo::CeOp& o) const {
    CeStep s;
    s.kind = o.kind;
    s.bytes = o.bytes;
    s.event = o.event;
    s.writer = o.writer;
    s.index = o.flag;
    s.value = o.value;
    using K = algo::CeOpKind;
    if (o.kind == K::copy) {
      s.dst = at(rank, o.dst);
      s.src = at(rank, o.src);
    } else if (o.kind == K::signal || o.kind == K::wait || o.kind == K::reset) {
      void* base = o.flag_rank == rank ? flags_->local(rank) : flags_->peer(rank, o.flag_rank);
      s.flag = static_cast<std::uint32_t*>(base) + o.flag;
    } else if (o.kind == K::reduce) {
      s.reduce.dst = at(rank, o.dst);
      for (int i = 0; i < o.nsrc; ++i) s.reduce.src[i] = at(rank, o.srcs[i]);
      s.reduce.nsrc = o.nsrc;
      s.reduce.elems = o.bytes / dtype_size(g_.dtype) + (o.bytes % dtype_size(g_.dtype) != 0 ? 1 : 0);
    }
    return s;
  }

  std::string describe(const algo::ErrorRecord& e) const {
    char buf[512];
    if (e.index == kEventIndex) {
      std::snprintf(buf, sizeof buf,
                    "%s: rank %d: a stream waited %.3g s for another stream of its own rank, which never got there; "
                    "this is a defect of the copy-engine program, please report it with the command line.",
                    label(), e.rank, timeout_s_);
      return buf;
    }
    std::snprintf(buf, sizeof buf,
                  "%s: rank %d stream %d waited %.3g s for flag word %u (written by rank %d) to reach %u (last "
                  "seen %u); rank %d never got there (crashed, hung, or not launched). Check that every rank runs "
                  "the same op sequence; raise the bound with a larger --timeout if the peer is merely slow.",
                  label(), e.rank, e.block, timeout_s_, e.index, e.peer, e.expected, e.seen, e.peer);
    return buf;
  }

  Fabric* fabric_ = nullptr;
  ReduceIo io_;
  std::vector<int> order_;
  std::string order_source_;
  std::vector<int> labels_;  // ce-island: the island of every rank
  std::unique_ptr<RankBuffers> staging_, flags_, errors_;
  std::vector<algo::CeProgram> programs_;
};

}  // namespace arbench
