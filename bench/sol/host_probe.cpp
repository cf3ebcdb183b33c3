// The pattern probe on CPU threads; see host_probe.hpp.
#include "sol/host_probe.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace arbench::sol {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kChunk = std::size_t{16} << 10;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A flag handed between two threads on its own cache line.
struct alignas(64) Flag {
  std::atomic<int> v{0};
};

// Spins (yielding) until *f == want or the deadline; false at the deadline.
bool wait_for(const Flag& f, int want, Clock::time_point deadline) {
  while (f.v.load(std::memory_order_acquire) != want) {
    if (Clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

struct Episode {
  std::vector<double> flow_s;  // per flow: its fastest repetition's seconds x reps; < 0: not done
  std::optional<double> latency_us;
  bool load_outlasted = true;  // the copies ran until the ping-pong ended
  std::string failed;
};

class Runner {
 public:
  Runner(const topo::Pattern& p, std::size_t bytes, const HostProbeOptions& opt) : p_(p), bytes_(bytes), opt_(opt) {
    int ranks = 0;
    for (const auto& f : p.flows) ranks = std::max({ranks, f.from + 1, f.to + 1});
    src_.assign(std::size_t(ranks), std::vector<unsigned char>(bytes, 0x5a));
    dst_.assign(p.flows.size(), std::vector<unsigned char>(bytes, 0));
  }

  // One episode: every driving thread copies its flows `reps` times; with `pair`, two more threads
  // hand a flag back and forth opt_.latency_rounds times while the copies run.
  Episode run(int reps, const std::pair<int, int>* pair) {
    Episode e;
    e.flow_s.assign(p_.flows.size(), -1);
    std::vector<std::vector<std::size_t>> driven(src_.size());
    for (std::size_t f = 0; f < p_.flows.size(); ++f)
      driven[std::size_t(p_.flows[f].pull ? p_.flows[f].to : p_.flows[f].from)].push_back(f);
    std::atomic<int> ready{0};
    std::atomic<bool> go{false}, timed_out{false};
    std::atomic<int> copying{0};
    const int threads = int(std::count_if(driven.begin(), driven.end(), [](const auto& d) { return !d.empty(); })) +
                        (pair ? 2 : 0);
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(opt_.wait_timeout_s));
    auto gate = [&] {
      ready.fetch_add(1, std::memory_order_acq_rel);
      while (!go.load(std::memory_order_acquire)) {
        if (Clock::now() > deadline) {
          timed_out = true;
          return false;
        }
        std::this_thread::yield();
      }
      return true;
    };
    std::vector<std::thread> pool;
    for (auto& flows : driven) {
      if (flows.empty()) continue;
      copying.fetch_add(1);
      pool.emplace_back([&, flows] {
        if (!gate()) return;
        // The fastest repetition, times reps: a thread the scheduler kept off a core (CPU threads
        // outnumber the cores) would price the scheduler, and a floor must stay below the twins.
        double best = -1;
        for (int r = 0; r < reps; ++r) {
          const auto t0 = Clock::now();
          for (std::size_t off = 0; off < bytes_; off += kChunk)
            for (std::size_t f : flows)
              std::memcpy(dst_[f].data() + off, src_[std::size_t(p_.flows[f].from)].data() + off,
                          std::min(kChunk, bytes_ - off));
          const double s = seconds(Clock::now() - t0);
          if (best < 0 || s < best) best = s;
        }
        for (std::size_t f : flows) e.flow_s[f] = best * reps;
        copying.fetch_sub(1, std::memory_order_acq_rel);
      });
    }
    Flag ping, pong;
    std::atomic<long long> elapsed_ns{-1};
    if (pair) {
      const int rounds = std::max(1, opt_.latency_rounds);
      pool.emplace_back([&] {  // the responder
        if (!gate()) return;
        for (int k = 1; k <= rounds; ++k) {
          if (!wait_for(ping, k, deadline)) return void(timed_out = true);
          pong.v.store(k, std::memory_order_release);
        }
      });
      pool.emplace_back([&] {  // the initiator
        if (!gate()) return;
        // The fastest round trip: CPU threads share cores with the copies, and a round the
        // scheduler delayed measures the scheduler, not the handoff (a floor wants the latter).
        long long best = -1;
        for (int k = 1; k <= rounds; ++k) {
          const auto t0 = Clock::now();
          ping.v.store(k, std::memory_order_release);
          if (!wait_for(pong, k, deadline)) return void(timed_out = true);
          const long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
          if (best < 0 || ns < best) best = ns;
        }
        elapsed_ns = best;
        e.load_outlasted = copying.load(std::memory_order_acquire) > 0;
      });
    }
    while (ready.load(std::memory_order_acquire) < threads && Clock::now() < deadline) std::this_thread::yield();
    go.store(true, std::memory_order_release);
    for (auto& t : pool) t.join();
    if (timed_out) e.failed = "a thread waited past " + std::to_string(opt_.wait_timeout_s) + " s";
    if (pair && elapsed_ns.load() >= 0)
      e.latency_us = double(elapsed_ns.load()) / 2.0 / 1e3;  // one way: half the fastest round trip
    return e;
  }

 private:
  const topo::Pattern& p_;
  std::size_t bytes_;
  HostProbeOptions opt_;
  std::vector<std::vector<unsigned char>> src_, dst_;
};

topo::PatternResult measure(const topo::Pattern& p, std::size_t bytes, const HostProbeOptions& opt, bool latency) {
  topo::PatternResult r{p.name, std::vector<std::optional<double>>(p.flows.size()), std::nullopt};
  Runner run(p, bytes, opt);
  for (int reps : {1, opt.repetitions}) {
    const Episode e = run.run(reps, nullptr);
    if (!e.failed.empty()) {
      r.skipped = e.failed;
      return r;
    }
    if (reps == opt.repetitions)
      for (std::size_t f = 0; f < p.flows.size(); ++f)
        if (e.flow_s[f] > 0) r.gbps[f] = double(bytes) * reps / e.flow_s[f] / 1e9;
  }
  if (!latency) return r;
  r.latency_us.resize(p.latency_pairs.size());
  for (std::size_t k = 0; k < p.latency_pairs.size(); ++k) {
    const Episode e = run.run(opt.repetitions, &p.latency_pairs[k]);
    const std::string name = std::to_string(p.latency_pairs[k].first) + "->" + std::to_string(p.latency_pairs[k].second);
    if (!e.failed.empty()) r.notes.push_back("latency " + name + ": " + e.failed);
    else if (!e.load_outlasted) r.notes.push_back("latency " + name + ": the copies ended before the ping-pong did");
    r.latency_us[k] = e.latency_us;  // CPU timing either way; the note says when the load had ended
  }
  return r;
}

}  // namespace

PatternRates run_host_pattern_probe(const std::vector<PlannedPattern>& plan, int ranks, const HostProbeOptions& opt) {
  PatternRates rates;
  rates.timing = "cpu";
  rates.method = "CPU threads, one per rank: memcpy of each flow's bytes in 16 KiB chunks, every flow of a pattern at "
                 "once; hop: a flag handed between two threads (release store, acquire load) while the copies run; "
                 "CPU timing";
  rates.repetitions = opt.repetitions;
  for (int r = 0; r < ranks; ++r) rates.positions.push_back("rank:" + std::to_string(r));
  const auto start = Clock::now();
  std::vector<std::size_t> sizes = opt.sizes;
  std::sort(sizes.begin(), sizes.end());
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    std::vector<topo::PatternResult> results;
    for (const auto& pp : plan) {
      if (seconds(Clock::now() - start) > opt.budget_s) {
        results.push_back({pp.pattern.name, std::vector<std::optional<double>>(pp.pattern.flows.size()),
                           "the probe's time budget (" + std::to_string(opt.budget_s) + " s) was spent before it"});
        continue;
      }
      results.push_back(measure(pp.pattern, sizes[s], opt, s + 1 == sizes.size()));
    }
    add_size(rates, plan, sizes[s], results);
  }
  return rates;
}

}  // namespace arbench::sol
