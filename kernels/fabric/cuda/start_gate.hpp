// StartGate: starts every rank's op of a timed sample together (the cuda and single_gpu fabrics).
//
// Protocol, per sample with a fresh token:
//   1. the host enqueues a 1-thread gate kernel on every rank's stream, then every rank's op;
//   2. each gate kernel spins on one host-mapped word until the host writes the token there
//      (the host does so once every rank's op is enqueued);
//   3. device barrier (when every rank can write every other rank's memory: P2P, or one GPU):
//      each rank stores the token into every peer's arrival word, then spins on its own arrival
//      words until every peer's token is there, polling its own memory (nanoseconds a poll).
//      Without it, ranks leave step 2 up to one PCIe poll of the host word apart (~1 us), and
//      the sample, the maximum over ranks, absorbs that skew;
//   4. the gate stamps its release time (%globaltimer) and, when a wait gave up after the
//      timeout, the token, so the host discards the sample.
// Clocks: a sample's start skew compares release stamps of different GPUs, so each GPU's clock
// offset from rank 0's is measured once, when the gate is built, by a ping-pong through
// host-mapped words (gate_math.hpp estimate_clock_offset).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arbench/fabric.hpp"
#include "kernels/fabric/cuda/gate_math.hpp"

namespace arbench {

class StartGate {
 public:
  // devices[i], streams[i]: rank first_rank + i's, the ranks this process drives of `world`;
  // `flags`: a symmetric buffer of kGateFlagWords words per rank for the device barrier (nullptr:
  // host word only, with the reason in `why_host_only`). With one process per GPU each process has
  // its own host word, opened once every process enqueued its sample, and the device barrier
  // (through NCCL windows, one node) lines the GPUs up; GPU clocks of other processes are not
  // known, so skew_s() covers this process's ranks only.
  StartGate(std::vector<int> devices, std::vector<cudaStream_t> streams, int first_rank, int world, double timeout_s,
            std::unique_ptr<RankBuffers> flags, std::string why_host_only);
  ~StartGate();
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  static constexpr std::size_t kGateFlagWords = kMaxRanks;  // arrival word per sender
  static constexpr std::size_t kGateFlagBytes = 128;        // the flag buffer per rank

  std::uint32_t next_token() { return ++token_; }
  // Enqueues rank's gate kernel for `token` on its stream (its device must be current).
  void enqueue(int rank, std::uint32_t token);
  void open(std::uint32_t token);
  // After the sample's streams are idle: did a gate give up, and the start skew (nullopt when
  // some GPU clock offset is unknown).
  bool timed_out(std::uint32_t token) const;
  std::optional<double> skew_s(std::uint32_t token) const;
  // The `local`-th GPU's clock minus the first's, in ns (nullopt: not measured).
  std::optional<std::int64_t> clock_offset_ns(int local) const { return offsets_ns_.at(static_cast<std::size_t>(local)); }
  // "host word + device barrier" or "host word only (<why>)", for banners.
  std::string describe() const;

 private:
  void measure_clock_offsets();

  std::vector<int> devices_;
  std::vector<cudaStream_t> streams_;
  int first_rank_ = 0, world_ = 1;
  double timeout_s_;
  std::unique_ptr<RankBuffers> flags_;
  std::string why_host_only_;
  volatile std::uint32_t* word_ = nullptr;  // host-mapped: written by the host, read by gate kernels
  std::uint32_t* d_word_ = nullptr;
  GateRecord* records_ = nullptr;  // host-mapped, one per rank: written by gate kernels
  GateRecord* d_records_ = nullptr;
  std::vector<std::optional<std::int64_t>> offsets_ns_;
  std::uint32_t token_ = 0;
};

}  // namespace arbench
