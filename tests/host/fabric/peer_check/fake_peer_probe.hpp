// FakePeerProbe: the functional peer check's backend (kernels/fabric/host/peer_check/peer_check.hpp) on host
// memory, with knobs for what goes wrong on real boxes: a pair whose words go nowhere (ACS), a
// probe that never finishes (a load through the mapping that never completes), a rank whose
// memory cannot be read or prepared (HangError), a sticky device fault, and bulk transfers that
// arrive corrupted or without their flag while every word passes. Every call is recorded.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/host/peer_check/peer_check.hpp"

namespace arbench::testing {

class FakePeerProbe final : public PeerProbe {
 public:
  FakePeerProbe(int world, std::size_t bulk)
      : mem(std::size_t(world), std::vector<std::uint64_t>(peer_probe_bytes(world, bulk) / 8, 0)),
        seen_(std::size_t(world)) {}

  // Knobs.
  std::set<std::pair<int, int>> words_lost;       // (from, to): the word store goes nowhere
  std::set<int> never_finishes, prepare_hangs, header_hangs;
  std::set<int> reads_ones;                       // its loads through the mapping come back all ones
  std::map<int, std::string> faults;              // rank: start() faults and the device stays dead
  std::set<std::tuple<int, int, int>> corrupt;    // (from, to, path): one bulk word arrives wrong
  std::set<std::tuple<int, int, int>> flag_lost;  // (from, to, path): the data, but never its flag

  std::vector<std::string> calls;  // "prepare 0", "start 1", "header 2", "bulk 2 1 0" ...
  std::vector<std::vector<std::uint64_t>> mem;
  std::vector<std::pair<int, int>> tried;  // (from, to) pairs probed

  void prepare(int rank, std::uint64_t read_word) override {
    calls.push_back("prepare " + std::to_string(rank));
    if (prepare_hangs.count(rank)) throw HangError("preparing rank " + std::to_string(rank) + " did not finish (fake)");
    auto& m = mem[std::size_t(rank)];
    m.assign(m.size(), 0);
    m[kPeerReadWord] = read_word;
  }
  void start(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write, double,
             std::size_t bulk, std::uint32_t token) override {
    calls.push_back("start " + std::to_string(rank));
    if (faults.count(rank)) {
      dead_ = faults[rank];
      throw CaseError("the probe kernel faulted (fake)");
    }
    if (never_finishes.count(rank)) return;  // nothing arrives, and finished() never says so
    std::vector<PeerSeen> out(peers.size());
    for (std::size_t i = 0; i < peers.size(); ++i) {
      const int p = peers[i];
      auto& m = mem[std::size_t(p)];
      const bool lost = words_lost.count({rank, p}) != 0;
      if (!lost) m[std::size_t(rank)] = write[i];
      out[i].written = !lost;
      out[i].write_ns = lost ? -1 : 900;
      out[i].read = reads_ones.count(rank) ? ~0ull : m[kPeerReadWord];
      tried.emplace_back(rank, p);
      out[i].read_ns = 700;
      for (int path = 0; path < 2 && bulk > 0; ++path) {
        const std::size_t at = peer_bulk_offset(rank, path, bulk) / 8, words = bulk / 8;
        for (std::size_t k = 0; k < words; ++k) m[at + k] = peer_bulk_word(token, rank, p, path, k);
        if (corrupt.count({rank, p, path})) m[at + words / 3] ^= 0x10;  // one bit of one word
        if (!flag_lost.count({rank, p, path}))
          m[(path == 0 ? kPeerCopyFlag0 : kPeerStoreFlag0) + std::size_t(rank)] = peer_bulk_flag(token, rank, p, path);
      }
    }
    seen_[std::size_t(rank)] = out;
  }
  bool finished(int rank) override {
    calls.push_back("finished " + std::to_string(rank));
    return never_finishes.count(rank) == 0;
  }
  std::vector<PeerSeen> seen(int rank) override { return seen_[std::size_t(rank)]; }
  std::vector<std::uint64_t> header(int rank) override {
    calls.push_back("header " + std::to_string(rank));
    if (!dead_.empty()) throw CaseError("a dead context (fake)");
    if (header_hangs.count(rank)) throw HangError("reading rank " + std::to_string(rank) + " did not finish (fake)");
    const auto& m = mem[std::size_t(rank)];
    return {m.begin(), m.begin() + kPeerProbeWords};
  }
  std::vector<std::uint64_t> bulk_region(int rank, int from, int path, std::size_t bulk) override {
    calls.push_back("bulk " + std::to_string(rank) + " " + std::to_string(from) + " " + std::to_string(path));
    const auto& m = mem[std::size_t(rank)];
    const std::size_t at = peer_bulk_offset(from, path, bulk) / 8;
    return {m.begin() + std::ptrdiff_t(at), m.begin() + std::ptrdiff_t(at + bulk / 8)};
  }
  std::string fatal(int) override { return dead_; }

 private:
  std::vector<std::vector<PeerSeen>> seen_;
  std::string dead_;
};

}  // namespace arbench::testing
