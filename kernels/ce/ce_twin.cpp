#include "kernels/ce/ce_twin.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "arbench/algo/epoch.hpp"
#include "arbench/core/errors.hpp"
#include "kernels/mem_host.hpp"
#include "kernels/thread_team.hpp"

namespace arbench {
namespace {

class CeTwin final : public CeVariant {
 public:
  using CeVariant::CeVariant;

  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() != Backend::host) return Support::no("the copy-engine twin runs on the host fabric");
    return CeVariant::supports(c, f);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    CeVariant::prepare(c, f, b, t);
    events_.assign(static_cast<std::size_t>(world_), {});
    op_no_.assign(static_cast<std::size_t>(world_), 0u);
    engines_.clear();
    engines_.resize(static_cast<std::size_t>(world_));
    for (int r = 0; r < world_; ++r)
      if (f.drives(r)) {
        events_[static_cast<std::size_t>(r)].assign(static_cast<std::size_t>(events(r)), 0u);
        const auto streams = static_cast<int>(program(r).streams.size());
        if (streams > 1) engines_[static_cast<std::size_t>(r)] = std::make_unique<ThreadTeam>(streams);
      }
  }

  // Only `rank`'s thread touches its events and op number. The rank's streams run all at once on
  // its engines (a thread per stream, made once in prepare; a program of one stream on the rank's
  // own thread), while the rank's thread waits for them, as a host thread for its stream.
  void launch(int rank, Stream /*stream*/) override {
    const CeStreams steps = steps_for(rank);
    const std::uint32_t op = ++op_no_[static_cast<std::size_t>(rank)];
    std::atomic<bool> stopped_on_event{false};
    ThreadTeam* engines = engines_[static_cast<std::size_t>(rank)].get();
    if (engines == nullptr) {
      run_stream(rank, 0, steps[0], op, stopped_on_event);
    } else {
      const auto bound = std::chrono::duration<double>(2 * timeout_s_ + 60.0);
      engines->run([&](int i) { run_stream(rank, i, steps[static_cast<std::size_t>(i)], op, stopped_on_event); },
                   bound, [&](int running) {
                     std::fprintf(stderr,
                                  "arbench: %s twin: rank %d: %d streams still running after %.0f s; a stream "
                                  "wait is not bounded. Aborting.\n",
                                  label(), rank, running, bound.count());
                     std::_Exit(kExitFailure);
                   });
    }
    // A stream that gave up on one of its own rank's events is the echo of a flag wait of another
    // stream, which recorded the cause; record the event only when nothing else was.
    if (stopped_on_event) {
      const algo::WaitSite site{rank, 0, rank, algo::WaitKind::none, kEventIndex};
      algo::record_timeout<HostMem>(error_record(rank), site, op, 0u);
    }
  }

 private:
  void run_stream(int rank, int stream, const std::vector<CeStep>& ops, std::uint32_t op,
                  std::atomic<bool>& stopped_on_event) {
    std::uint32_t* ev = events_[static_cast<std::size_t>(rank)].data();
    algo::OpBound bound{timeout_ns(timeout_s_), 0};
    algo::ErrorRecord* rec = error_record(rank);
    using K = algo::CeOpKind;
    for (const CeStep& s : ops) {
      switch (s.kind) {
        case K::copy: std::memcpy(s.dst, s.src, s.bytes); break;
        case K::signal: HostMem::store_release(s.flag, s.value); break;
        case K::reset:
          if (!opt_.skip_resets) HostMem::store_release(s.flag, 0u);
          break;
        case K::wait: {
          if (opt_.skip_waits) break;
          const algo::WaitSite site{rank, stream, s.writer, algo::WaitKind::none, static_cast<std::uint32_t>(s.index)};
          if (!algo::wait_flag<HostMem>(s.flag, s.value, bound, rec, site)) return;  // recorded: stop this stream
          break;
        }
        case K::reduce:
          with_dtype(g_.dtype, [&](auto d) {
            const std::size_t packs = algo::pack_count(s.reduce.elems, g_.dtype);
            for (std::size_t k = 0; k < packs; ++k) algo::ce_reduce_pack<decltype(d)::value>(s.reduce, k);
          });
          break;
        case K::record: HostMem::store_release(&ev[s.event], op); break;
        case K::await: {
          if (!await_event(&ev[s.event], op, bound)) {
            stopped_on_event = true;
            return;
          }
          break;
        }
      }
    }
  }

  // Waits until the rank's event word holds op number `op`; false at the op's deadline.
  static bool await_event(const std::uint32_t* word, std::uint32_t op, algo::OpBound& bound) {
    if (HostMem::load_acquire(word) == op) return true;
    if (bound.deadline_ns == 0) bound.deadline_ns = HostMem::now_ns() + bound.timeout_ns;
    while (HostMem::load_acquire(word) != op) {
      if (HostMem::now_ns() > bound.deadline_ns) return false;
      HostMem::pause();
    }
    return true;
  }

  std::vector<std::unique_ptr<ThreadTeam>> engines_;  // per rank: its copy streams' threads
  std::vector<std::vector<std::uint32_t>> events_;
  std::vector<std::uint32_t> op_no_;
};

}  // namespace

std::unique_ptr<CeVariant> make_ce_twin(CeAlgo algo, CeOptions opt) { return std::make_unique<CeTwin>(algo, opt); }

VariantEntry ce_host_entry(CeAlgo algo) {
  return host_entry(text_of(kCeText, algo), [algo] { return make_ce_twin(algo); });
}

}  // namespace arbench
