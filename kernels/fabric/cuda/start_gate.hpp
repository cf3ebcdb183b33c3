// StartGate: starts every rank's op of a timed sample together (the cuda and single_gpu fabrics).
//
// Protocol, per sample with a fresh token:
//   1. the host enqueues a 1-thread gate kernel on every rank's stream, then every rank's op;
//   2. each gate kernel spins on one host-mapped word until the host writes the token there
//      (the host does so once every rank's op is enqueued);
//   3. device barrier (when every rank can write every other rank's memory: P2P, or one GPU), in
//      kGateRounds rounds (gate_math.hpp says why two): each rank stores the token into every
//      peer's arrival word of the round, then spins on its own arrival words until every peer's
//      token is there, polling its own memory (nanoseconds a poll). Without it, ranks leave
//      step 2 up to one PCIe poll of the host word apart (~1 us), and the sample, the maximum over
//      ranks, absorbs that skew;
//   4. the gate stamps its release time (%globaltimer) and, when a wait gave up after the
//      timeout, the token, so the host discards the sample.
// Clocks: a sample's start skew compares release stamps of different GPUs, so each GPU's clock
// offset from rank 0's is measured by a ping-pong with rank 0 (gate_math.hpp estimate_clock):
// through the device barrier's memory (peer-to-peer, polling local memory: the shortest round
// trip) when there is one, else through host-mapped words (one process only). The error bound of
// each offset is half its shortest round trip. Offsets are measured when the gate is built and
// again when they are older than kClockRefresh_s at the start of a batch (GPU clocks drift
// apart); the change is the drift. With one process per GPU the ping-pong runs between the
// processes' GPUs through the barrier's memory and the stamps are exchanged over the World, so the
// skew is known across processes too.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arbench/fabric.hpp"
#include "arbench/world.hpp"
#include "kernels/fabric/cuda/gate_math.hpp"

namespace arbench {

class StartGate {
 public:
  // devices[i], streams[i]: rank first_rank + i's, the ranks this process drives of `world`;
  // `flags`: a symmetric buffer of kGateFlagBytes per rank for the device barrier (nullptr:
  // host word only, with the reason in `why_host_only`). With one process per GPU each process has
  // its own host word, opened once every process enqueued its sample, and the device barrier
  // (through NCCL windows, one node) lines the GPUs up. Collective over `processes` when the
  // ranks span several (the clock ping-pong).
  StartGate(std::vector<int> devices, std::vector<cudaStream_t> streams, int first_rank, int world, double timeout_s,
            std::unique_ptr<RankBuffers> flags, std::string why_host_only, World& processes);
  ~StartGate();
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  // Per rank, 32-bit words: kGateRounds x kMaxRanks arrival words (one per round and sender), the
  // ping word (written by rank 0), then one pong word per peer (in rank 0's memory).
  static constexpr std::size_t kArriveWords = std::size_t(kGateRounds) * kMaxRanks;
  static constexpr std::size_t kPingWord = kArriveWords;
  static constexpr std::size_t kPongWords = kArriveWords + 1;
  static constexpr std::size_t kGateFlagWords = kPongWords + kMaxRanks;
  static constexpr std::size_t kGateFlagBytes = 128;  // the flag buffer per rank
  static_assert(kGateFlagWords * sizeof(std::uint32_t) <= kGateFlagBytes);
  // Offsets older than this are measured again at the start of the next batch.
  static constexpr double kClockRefresh_s = 60.0;

  std::uint32_t next_token() { return ++token_; }
  // Enqueues rank's gate kernel for `token` on its stream (its device must be current).
  void enqueue(int rank, std::uint32_t token);
  void open(std::uint32_t token);
  // After the sample's streams are idle: did a gate give up, and the start skew of this process's
  // ranks (nullopt when some GPU clock offset is unknown).
  bool timed_out(std::uint32_t token) const;
  std::optional<double> skew_s(std::uint32_t token) const;
  // This process's part of the skew across processes (gate_math.hpp release_extremes).
  std::optional<ReleaseExtremes> extremes(std::uint32_t token) const;
  // The `local`-th GPU's clock minus rank 0's, in ns (nullopt: not measured).
  std::optional<std::int64_t> clock_offset_ns(int local) const { return offsets_ns_.at(static_cast<std::size_t>(local)); }
  // How the offsets were measured, their error bound and drift (Fabric::clock_sync).
  ClockSync clock_sync() const;
  // Measures the offsets again when they are older than `max_age_s` (every process must call it
  // at the same point: the age is agreed over the World).
  void refresh_clocks(double max_age_s = kClockRefresh_s);
  // "host word + device barrier (2 rounds)" or "host word only (<why>)", for banners.
  std::string describe() const;

 private:
  void measure_clock_offsets();
  void measure_host_mapped();  // one process: ping-pong through host-mapped words
  void measure_peer();         // through the barrier's memory (P2P), across processes too

  std::vector<int> devices_;
  std::vector<cudaStream_t> streams_;
  int first_rank_ = 0, world_ = 1;
  double timeout_s_;
  std::unique_ptr<RankBuffers> flags_;
  std::string why_host_only_;
  World& processes_;
  volatile std::uint32_t* word_ = nullptr;  // host-mapped: written by the host, read by gate kernels
  std::uint32_t* d_word_ = nullptr;
  GateRecord* records_ = nullptr;  // host-mapped, one per rank: written by gate kernels
  GateRecord* d_records_ = nullptr;
  std::vector<std::optional<std::int64_t>> offsets_ns_;
  std::vector<std::uint64_t> errors_ns_;  // per local rank, the offset's error bound
  std::uint64_t base_ns_ = 0;             // a reading of rank 0's clock every process knows
  std::string clock_method_;
  double drift_ns_ = -1;                  // largest offset change at the last refresh (< 0: none yet)
  std::chrono::steady_clock::time_point measured_at_{};
  std::uint32_t ping_seq_ = 0;            // ping-pong tokens never repeat across measurements
  std::uint32_t token_ = 0;
};

}  // namespace arbench
