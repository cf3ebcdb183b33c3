// The functional peer-to-peer check's backend on host memory (peer_check.hpp, HostPeerProbe): the
// host fabric's ranks and peers are plain pointers of one process.
#include <cstdint>
#include <vector>

#include "arbench/core/steady_clock.hpp"
#include "kernels/fabric/host/peer_check/peer_check.hpp"

namespace arbench {

namespace {

volatile std::uint64_t* words_of(void* p) { return static_cast<volatile std::uint64_t*>(p); }

}  // namespace

void HostPeerProbe::prepare(int rank, std::uint64_t read_word) {
  volatile std::uint64_t* w = words_of(buf_.local(rank));
  for (std::size_t i = 0; i < kPeerProbeWords; ++i) w[i] = 0;
  w[kPeerReadWord] = read_word;
}

void HostPeerProbe::start(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write,
                          double bound_s, std::size_t bulk, std::uint32_t token) {
  std::vector<PeerSeen> out(peers.size());
  const auto bound_ns = static_cast<std::uint64_t>(bound_s * 1e9);
  for (std::size_t i = 0; i < peers.size(); ++i) {
    char* base = static_cast<char*>(buf_.peer(rank, peers[i]));
    volatile std::uint64_t* peer = words_of(base);
    PeerSeen& s = out[i];
    const std::uint64_t t0 = steady_now_ns();
    peer[rank] = write[i];
    for (;;) {
      const std::uint64_t now = steady_now_ns();
      if (peer[rank] == write[i]) {
        s.written = true;
        s.write_ns = double(now - t0);
        break;
      }
      if (now - t0 > bound_ns) break;
    }
    constexpr int kLoads = 16;
    const std::uint64_t r0 = steady_now_ns();
    for (int k = 0; k < kLoads; ++k) s.read = peer[kPeerReadWord];
    s.read_ns = double(steady_now_ns() - r0) / kLoads;
    for (int path = 0; path < 2 && bulk > 0; ++path) {  // plain stores, then the flag (one thread: in order)
      auto* region = reinterpret_cast<std::uint64_t*>(base + peer_bulk_offset(rank, path, bulk));
      for (std::size_t k = 0; k < bulk / sizeof(std::uint64_t); ++k)
        region[k] = peer_bulk_word(token, rank, peers[i], path, k);
      peer[(path == 0 ? kPeerCopyFlag0 : kPeerStoreFlag0) + std::size_t(rank)] =
          peer_bulk_flag(token, rank, peers[i], path);
    }
  }
  seen_.at(std::size_t(rank)) = std::move(out);
}

std::vector<std::uint64_t> HostPeerProbe::header(int rank) {
  volatile std::uint64_t* w = words_of(buf_.local(rank));
  std::vector<std::uint64_t> out(kPeerProbeWords);
  for (std::size_t i = 0; i < kPeerProbeWords; ++i) out[i] = w[i];
  return out;
}

std::vector<std::uint64_t> HostPeerProbe::bulk_region(int rank, int from, int path, std::size_t bulk) {
  const auto* region =
      reinterpret_cast<const std::uint64_t*>(static_cast<const char*>(buf_.local(rank)) + peer_bulk_offset(from, path, bulk));
  return {region, region + bulk / sizeof(std::uint64_t)};
}

}  // namespace arbench
