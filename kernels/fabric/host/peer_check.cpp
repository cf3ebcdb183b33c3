// The functional peer-to-peer check (peer_check.hpp).
#include "kernels/fabric/host/peer_check.hpp"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include "arbench/core/steady_clock.hpp"

namespace arbench {
namespace {

bool is_reported(const std::vector<std::vector<int>>& reported, int a, int b) {
  return reported.empty() || reported.at(std::size_t(a)).at(std::size_t(b)) != 0;
}

std::string hex(std::uint64_t v) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%016llx", static_cast<unsigned long long>(v));
  return s;
}

// What this process found, one finding per line, for the other processes:
//   "w <from> <to> <written> <write_ns> <read> <read_ns>\t<failure>"   (rows this process drives)
//   "a <from> <to> <arrived>"                                         (columns it drives)
struct Findings {
  std::vector<std::vector<PeerSeen>> seen;  // [from][to]
  std::vector<std::vector<int>> arrived;    // [from][to]: 1 arrived, 0 not, -1 unknown
};

std::string encode(const Findings& f, int world, const std::function<bool(int)>& drives) {
  std::ostringstream o;
  o.precision(17);
  for (int a = 0; a < world; ++a)
    for (int b = 0; b < world; ++b) {
      if (a == b) continue;
      const PeerSeen& s = f.seen[std::size_t(a)][std::size_t(b)];
      if (drives(a))
        o << "w " << a << ' ' << b << ' ' << int(s.written) << ' ' << s.write_ns << ' ' << s.read << ' ' << s.read_ns
          << '\t' << s.failure << '\n';
      if (drives(b)) o << "a " << a << ' ' << b << ' ' << f.arrived[std::size_t(a)][std::size_t(b)] << '\n';
    }
  return o.str();
}

void decode(const std::string& text, Findings& f) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream l(line);
    char kind = 0;
    int a = 0, b = 0;
    l >> kind >> a >> b;
    if (kind == 'w') {
      PeerSeen s;
      int written = 0;
      l >> written >> s.write_ns >> s.read >> s.read_ns;
      s.written = written != 0;
      const auto tab = line.find('\t');
      if (tab != std::string::npos) s.failure = line.substr(tab + 1);
      f.seen[std::size_t(a)][std::size_t(b)] = s;
    } else if (kind == 'a') {
      l >> f.arrived[std::size_t(a)][std::size_t(b)];
    }
  }
}

}  // namespace

PeerAccess check_peer_access(PeerProbe& probe, int world, const std::function<bool(int)>& drives,
                             const std::vector<std::vector<int>>& reported, World& processes, double bound_s,
                             std::uint32_t token, std::string method, std::string unit) {
  Findings f;
  f.seen.assign(std::size_t(world), std::vector<PeerSeen>(std::size_t(world)));
  f.arrived.assign(std::size_t(world), std::vector<int>(std::size_t(world), -1));
  for (int r = 0; r < world; ++r)
    if (drives(r)) probe.prepare(r, peer_read_word(token, r));
  processes.barrier("the peer-to-peer check: probe memory prepared");
  for (int r = 0; r < world; ++r) {
    if (!drives(r)) continue;
    std::vector<int> peers;
    std::vector<std::uint64_t> words;
    for (int p = 0; p < world; ++p)
      if (p != r && is_reported(reported, r, p)) {
        peers.push_back(p);
        words.push_back(peer_write_word(token, r, p));
      }
    if (peers.empty()) continue;
    const std::vector<PeerSeen> seen = probe.probe(r, peers, words, bound_s);
    for (std::size_t i = 0; i < peers.size() && i < seen.size(); ++i) f.seen[std::size_t(r)][std::size_t(peers[i])] = seen[i];
  }
  processes.barrier("the peer-to-peer check: writes done");
  for (int p = 0; p < world; ++p) {
    if (!drives(p)) continue;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(bound_s);
    std::vector<std::uint64_t> got;
    for (;;) {  // a write may still be on its way: poll until every expected one is there, or the bound
      got = probe.slots(p);
      bool all = true;
      for (int q = 0; q < world; ++q)
        if (q != p && is_reported(reported, q, p) && got.at(std::size_t(q)) != peer_write_word(token, q, p)) all = false;
      if (all || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (int q = 0; q < world; ++q)
      if (q != p && is_reported(reported, q, p))
        f.arrived[std::size_t(q)][std::size_t(p)] = got.at(std::size_t(q)) == peer_write_word(token, q, p) ? 1 : 0;
  }
  for (const std::string& theirs : processes.all_gather(encode(f, world, drives), "gathering the peer-to-peer check"))
    decode(theirs, f);

  PeerAccess m(world, std::move(method), bound_s, std::move(unit));
  for (int a = 0; a < world; ++a)
    for (int b = 0; b < world; ++b) {
      if (a == b) continue;
      PeerLink& l = m.at(a, b);
      if (!is_reported(reported, a, b)) {
        l.path = PeerPath::no_p2p;
        continue;
      }
      const PeerSeen& s = f.seen[std::size_t(a)][std::size_t(b)];
      const bool arrived = f.arrived[std::size_t(a)][std::size_t(b)] == 1;
      const bool read_ok = s.read == peer_read_word(token, b);
      l.write_us = s.write_ns >= 0 ? s.write_ns * 1e-3 : -1;
      l.read_us = s.read_ns >= 0 ? s.read_ns * 1e-3 : -1;
      if (arrived && read_ok && s.failure.empty()) {
        l.path = PeerPath::ok;
        continue;
      }
      l.path = PeerPath::broken;
      if (!s.failure.empty())
        l.detail = s.failure;
      else if (!arrived)
        l.detail = "a write through the mapping did not arrive within " + std::to_string(int(bound_s * 1000 + 0.5)) + " ms";
      else
        l.detail = "a read through the mapping returned " + hex(s.read) + ", not " + hex(peer_read_word(token, b));
    }
  return m;
}

// ---- host memory -----------------------------------------------------------------------------

namespace {

volatile std::uint64_t* words_of(void* p) { return static_cast<volatile std::uint64_t*>(p); }

}  // namespace

void HostPeerProbe::prepare(int rank, std::uint64_t read_word) {
  volatile std::uint64_t* w = words_of(buf_.local(rank));
  for (std::size_t i = 0; i < kMaxRanks; ++i) w[i] = 0;
  w[kMaxRanks] = read_word;
}

std::vector<PeerSeen> HostPeerProbe::probe(int rank, const std::vector<int>& peers,
                                           const std::vector<std::uint64_t>& write, double bound_s) {
  std::vector<PeerSeen> out(peers.size());
  const auto bound_ns = static_cast<std::uint64_t>(bound_s * 1e9);
  for (std::size_t i = 0; i < peers.size(); ++i) {
    volatile std::uint64_t* peer = words_of(buf_.peer(rank, peers[i]));
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
    for (int k = 0; k < kLoads; ++k) s.read = peer[kMaxRanks];
    s.read_ns = double(steady_now_ns() - r0) / kLoads;
  }
  return out;
}

std::vector<std::uint64_t> HostPeerProbe::slots(int rank) {
  volatile std::uint64_t* w = words_of(buf_.local(rank));
  std::vector<std::uint64_t> out(kMaxRanks);
  for (std::size_t i = 0; i < kMaxRanks; ++i) out[i] = w[i];
  return out;
}

}  // namespace arbench
