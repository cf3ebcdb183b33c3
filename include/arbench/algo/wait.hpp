// Bounded waits and the error record: a lost peer is an error, never a hang.
//
// Purpose: every spin in a kernel or twin goes through bounded_wait(). When the bound expires it
// records who waited for what in the rank's ErrorRecord and returns false; the caller then stops
// the op (skips the rest of its block's work). After the op, the variant's check_errors() reads
// the record and throws a CaseError naming rank, block, peer and flag (describe_timeout()).
// Requirements: the ErrorRecord lives in the waiting rank's own memory (device memory or twin
// memory), never in a peer's: claiming it is an atomic on local memory only.
// Memory policy `Mem` (see mem_policy.hpp): now_ns(), pause(), claim(), load_acquire().
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "arbench/algo/epoch.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

enum class WaitKind : std::uint32_t {
  none = 0,
  barrier = 1,  // a per-block barrier flag; index = phase (0 or 1)
  ll_line = 2,  // an in-band LL line of the one-shot push protocol; index = line number
  cross_flag = 3,  // island-twoshot: the flag a rank of another island stores once its partials are there
};

// Where a wait happened: enough for a person to find the lost peer.
struct WaitSite {
  std::int32_t rank = 0;   // the rank that waited
  std::int32_t block = 0;  // its block
  std::int32_t peer = 0;   // the rank whose write never came
  WaitKind kind = WaitKind::none;
  std::uint32_t index = 0;
};

// One per rank, in that rank's local memory, zero-filled; the first timeout of an op claims it.
struct ErrorRecord {
  std::uint32_t claimed = 0;  // 0: no error; set once by Mem::claim
  std::int32_t rank = 0;
  std::int32_t block = 0;
  std::int32_t peer = 0;
  std::uint32_t kind = 0;  // WaitKind
  std::uint32_t index = 0;
  std::uint32_t expected = 0;  // the epoch waited for
  std::uint32_t seen = 0;      // the last value read
};

template <class Mem>
ARB_HD void record_timeout(ErrorRecord* rec, const WaitSite& site, std::uint32_t expected,
                           std::uint32_t seen) {
  if (!Mem::claim(&rec->claimed)) return;  // keep the first timeout: later ones are its echoes
  rec->rank = site.rank;
  rec->block = site.block;
  rec->peer = site.peer;
  rec->kind = static_cast<std::uint32_t>(site.kind);
  rec->index = site.index;
  rec->expected = expected;
  rec->seen = seen;
}

// The time bound of one op, per thread: every wait of the op draws on one budget. The first wait
// that has to spin starts the clock; it and every later wait give up at that deadline, so an op
// ends within timeout_ns of its first spin however many waits it has (the ring waits once per
// transfer, the one-shot push once per pack). The host's bound on a whole op (twice the timeout,
// CudaFabric::sync_all) relies on it: a kernel still running after it is stuck, not slow.
struct OpBound {
  std::uint64_t timeout_ns = 0;
  std::uint64_t deadline_ns = 0;  // 0 until the first wait spins
};

// Spins until probe(seen) returns true or the op's deadline passes. probe stores the value it
// read in `seen` for the error message. Returns false on expiry, after recording it.
template <class Mem, class Probe>
ARB_HD bool bounded_wait(Probe&& probe, std::uint32_t expected, OpBound& bound, ErrorRecord* rec,
                         const WaitSite& site) {
  std::uint32_t seen = 0;
  if (probe(seen)) return true;  // the common case: no clock read
  if (bound.deadline_ns == 0) bound.deadline_ns = Mem::now_ns() + bound.timeout_ns;
  for (;;) {
    Mem::pause();
    if (probe(seen)) return true;
    if (Mem::now_ns() > bound.deadline_ns) {  // round-trips: poll (each pass polls the same flags: one wait)
      record_timeout<Mem>(rec, site, expected, seen);
      return false;
    }
  }
}

// Waits until the barrier flag at `flag` reaches epoch `want` (acquire: what the peer wrote
// before releasing the flag is visible afterwards).
template <class Mem>
ARB_HD bool wait_flag(const std::uint32_t* flag, std::uint32_t want, OpBound& bound, ErrorRecord* rec,
                      const WaitSite& site) {
  return bounded_wait<Mem>(
      [&](std::uint32_t& seen) {
        seen = Mem::load_acquire(flag);
        return epoch_reached(seen, want);
      },
      want, bound, rec, site);
}

// The message a person reads when a wait expired (host only).
inline std::string describe_timeout(const ErrorRecord& r, const char* variant, double timeout_s) {
  char what[96];
  if (r.kind == static_cast<std::uint32_t>(WaitKind::ll_line))
    std::snprintf(what, sizeof what, "LL line %u pushed by rank %d", r.index, r.peer);
  else if (r.kind == static_cast<std::uint32_t>(WaitKind::cross_flag))
    std::snprintf(what, sizeof what, "cross-island flag of rank %d", r.peer);
  else
    std::snprintf(what, sizeof what, "barrier flag (phase %u) of rank %d", r.index, r.peer);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: rank %d block %d waited %.3g s for the %s to reach epoch %u (last seen %u); "
                "rank %d never arrived (crashed, hung, or not launched). Check that every rank "
                "runs the same op sequence; raise the bound with a larger fabric timeout if the "
                "peer is merely slow.",
                variant, r.rank, r.block, timeout_s, what, r.expected, r.seen, r.peer);
  return buf;
}

}  // namespace arbench::algo
