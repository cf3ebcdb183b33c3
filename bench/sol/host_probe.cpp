// The pattern probe on CPU threads; see host_probe.hpp.
#include "sol/host_probe.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include <pthread.h>
#include <sched.h>

namespace arbench::sol {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kChunk = std::size_t{16} << 10;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A flag handed between two threads on its own cache line.
struct alignas(64) Flag {
  std::atomic<int> v{0};
};

struct Episode {
  std::vector<double> flow_s;  // per flow: its fastest repetition's seconds x reps; < 0: not done
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

  // One episode: every driving thread copies its flows `reps` times, all behind one start.
  Episode run(int reps) {
    Episode e;
    e.flow_s.assign(p_.flows.size(), -1);
    std::vector<std::vector<std::size_t>> driven(src_.size());
    for (std::size_t f = 0; f < p_.flows.size(); ++f)
      driven[std::size_t(p_.flows[f].pull ? p_.flows[f].to : p_.flows[f].from)].push_back(f);
    std::atomic<int> ready{0};
    std::atomic<bool> go{false}, timed_out{false};
    const int threads = int(std::count_if(driven.begin(), driven.end(), [](const auto& d) { return !d.empty(); }));
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
      });
    }
    while (ready.load(std::memory_order_acquire) < threads && Clock::now() < deadline) std::this_thread::yield();
    // A thread that reached the gate after the deadline would copy alone, at an uncontended rate.
    const bool all_ready = ready.load(std::memory_order_acquire) == threads;
    go.store(true, std::memory_order_release);
    for (auto& t : pool) t.join();
    if (timed_out || !all_ready)
      e.failed = "a thread waited past " + std::to_string(opt_.wait_timeout_s) + " s";
    return e;
  }

 private:
  const topo::Pattern& p_;
  std::size_t bytes_;
  HostProbeOptions opt_;
  std::vector<std::vector<unsigned char>> src_, dst_;
};

// Spins until done() or the deadline (false at the deadline): busy for a few thousand checks at a
// time, then one yield. Busy, so that when both threads of a handoff hold a core the crossing is the
// cache line's, not a scheduler's wake-up; a yield now and then, so that two threads sharing one
// core still progress.
template <class Done>
bool spin_until(const Done& done, Clock::time_point deadline) {
  for (;;) {
    for (int i = 0; i < 4096; ++i)
      if (done()) return true;
    if (Clock::now() > deadline) return false;
    std::this_thread::yield();
  }
}

// Pins two threads to two different CPUs of the process's set; false when it has fewer than two
// or the system refuses. Unpinned, the scheduler of a loaded machine may keep both on one core, and
// no crossing is ever faster than its context switch.
bool pin_apart(std::thread& a, std::thread& b) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  int cpus[2], found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; ++c)
    if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  if (found < 2) return false;
  bool ok = true;
  for (int i = 0; i < 2; ++i) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[i], &one);
    ok = pthread_setaffinity_np((i == 0 ? a : b).native_handle(), sizeof one, &one) == 0 && ok;
  }
  return ok;
}

// One hop with no copies running: a thread stamps the time and raises a flag, `rounds` times or
// until `budget_s` is spent, whichever comes first; the other, spinning on it, reads the clock when
// it sees the flag and answers, so rounds do not overlap. The hop is the fastest one-way crossing
// seen (both threads read one steady clock, which GPUs in different devices could not): the least
// a wait on a peer's flag costs on this machine, a cache line moving between two cores, which no
// load makes faster. Not half the fastest round trip, nor with the twins' yield on every check
// (kernels/mem_host.hpp): on a loaded 2-core machine both then measure the scheduler's wake-ups
// (1.6-2 us), and a 2-rank twoshot twin, whose ranks overlap their four waits, beat 4 x that.
// nullopt, with *failed, when no round ended before wait_timeout_s.
std::optional<double> idle_hop_us(int rounds, double budget_s, double wait_timeout_s, std::string* failed,
                                  bool* pinned_apart) {
  constexpr int kStop = -1;
  Flag ping, pong;
  std::atomic<long long> sent_ns{0};
  const auto origin = Clock::now();
  auto ns_since_origin = [&] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - origin).count();
  };
  auto after = [&](double s) {
    return origin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const auto deadline = after(wait_timeout_s), enough = after(budget_s);
  long long best = -1;  // written by the responder only, read after join
  std::thread responder([&] {
    for (int k = 1;; ++k) {
      int seen = 0;
      if (!spin_until([&] { return (seen = ping.v.load(std::memory_order_acquire)) == k || seen == kStop; }, deadline) ||
          seen == kStop)
        return;
      const long long ns = ns_since_origin() - sent_ns.load(std::memory_order_relaxed);
      if (best < 0 || ns < best) best = ns;
      pong.v.store(k, std::memory_order_release);
    }
  });
  std::thread initiator([&] {
    for (int k = 1; k <= rounds && (k == 1 || Clock::now() < enough); ++k) {
      sent_ns.store(ns_since_origin(), std::memory_order_relaxed);  // published by the release below
      ping.v.store(k, std::memory_order_release);
      // The responder gives up by the same deadline.
      if (!spin_until([&] { return pong.v.load(std::memory_order_acquire) == k; }, deadline)) break;
    }
    ping.v.store(kStop, std::memory_order_release);
  });
  const bool pinned = pin_apart(responder, initiator);
  responder.join();
  initiator.join();
  if (pinned_apart) *pinned_apart = pinned;
  if (best < 0) {
    *failed = "a thread waited past " + std::to_string(wait_timeout_s) + " s";
    return std::nullopt;
  }
  return double(best) / 1e3;
}

topo::PatternResult measure(const topo::Pattern& p, std::size_t bytes, const HostProbeOptions& opt) {
  topo::PatternResult r{p.name, std::vector<std::optional<double>>(p.flows.size()), std::nullopt};
  Runner run(p, bytes, opt);
  for (int reps : {1, opt.repetitions}) {
    const Episode e = run.run(reps);
    if (!e.failed.empty()) {
      r.skipped = e.failed;
      return r;
    }
    if (reps == opt.repetitions)
      for (std::size_t f = 0; f < p.flows.size(); ++f)
        if (e.flow_s[f] > 0) r.gbps[f] = double(bytes) * reps / e.flow_s[f] / 1e9;
  }
  return r;
}

// The idle hop of every measured pattern's latency pairs: one measurement, since with no copies
// running a CPU hop depends on neither the pattern nor the pair (no rank's thread has a core).
// The hop under the pattern's load (latency_us) stays null: under the copies it measures the
// scheduler's time slices.
void hop_of_every_pattern(const std::vector<PlannedPattern>& plan, const HostProbeOptions& opt,
                          std::vector<topo::PatternResult>& results) {
  std::string failed;
  bool pinned = false;
  const auto hop =
      idle_hop_us(std::max(1, opt.latency_rounds), opt.latency_budget_s, opt.wait_timeout_s, &failed, &pinned);
  for (std::size_t i = 0; i < results.size() && i < plan.size(); ++i) {
    if (results[i].skipped) continue;
    const std::size_t pairs = plan[i].pattern.latency_pairs.size();
    results[i].latency_us.assign(pairs, std::nullopt);
    results[i].idle_latency_us.assign(pairs, hop);
    if (!hop && pairs > 0) results[i].notes.push_back("hop: " + failed);
    if (hop && pairs > 0 && !pinned)
      results[i].notes.push_back("hop: its two threads could not be pinned to two CPUs (fewer than two in the "
                                 "process's set, or the system refused): on a loaded machine it may be a context "
                                 "switch, not a crossing");
  }
}

}  // namespace

PatternRates run_host_pattern_probe(const std::vector<PlannedPattern>& plan, int ranks, const HostProbeOptions& opt) {
  PatternRates rates;
  rates.timing = "cpu";
  rates.method = "CPU threads, one per rank: memcpy of each flow's bytes in 16 KiB chunks, every flow of a pattern at "
                 "once; hop: the fastest one-way crossing of a flag between two busy-spinning threads pinned to two "
                 "CPUs (release store, "
                 "acquire load, one steady clock) with no copies running, the same for every pattern (under load it "
                 "would price the scheduler); CPU timing";
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
      results.push_back(measure(pp.pattern, sizes[s], opt));
    }
    if (s + 1 == sizes.size()) hop_of_every_pattern(plan, opt, results);
    add_size(rates, plan, sizes[s], results);
  }
  return rates;
}

}  // namespace arbench::sol
