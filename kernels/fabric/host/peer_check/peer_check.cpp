// The functional peer-to-peer check (peer_check.hpp).
#include "kernels/fabric/host/peer_check/peer_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>


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
//   "a <from> <to> <arrived>\t<detail>"                                (columns it drives)
//   "f\t<fatal>"                                                      (a device fault, if any)
struct Findings {
  std::vector<std::vector<PeerSeen>> seen;       // [from][to]
  std::vector<std::vector<int>> arrived;         // [from][to]: 1 arrived, 0 not, -1 unknown
  std::vector<std::vector<std::string>> detail;  // [from][to]: what the owner found wrong (bulk, header)
  std::string fatal;
};

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  return s;
}

std::string encode(const Findings& f, int world, const std::function<bool(int)>& drives) {
  std::ostringstream o;
  o.precision(17);
  for (int a = 0; a < world; ++a)
    for (int b = 0; b < world; ++b) {
      if (a == b) continue;
      const PeerSeen& s = f.seen[std::size_t(a)][std::size_t(b)];
      if (drives(a))
        o << "w " << a << ' ' << b << ' ' << int(s.written) << ' ' << s.write_ns << ' ' << s.read << ' ' << s.read_ns
          << '\t' << one_line(s.failure) << '\n';
      if (drives(b))
        o << "a " << a << ' ' << b << ' ' << f.arrived[std::size_t(a)][std::size_t(b)] << '\t'
          << one_line(f.detail[std::size_t(a)][std::size_t(b)]) << '\n';
    }
  if (!f.fatal.empty()) o << "f\t" << one_line(f.fatal) << '\n';
  return o.str();
}

std::string after_tab(const std::string& line) {
  const auto tab = line.find('\t');
  return tab == std::string::npos ? std::string() : line.substr(tab + 1);
}

void decode(const std::string& text, Findings& f) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream l(line);
    char kind = 0;
    int a = 0, b = 0;
    l >> kind;
    if (kind == 'f') {
      if (f.fatal.empty()) f.fatal = after_tab(line);
      continue;
    }
    l >> a >> b;
    if (kind == 'w') {
      PeerSeen s;
      int written = 0;
      l >> written >> s.write_ns >> s.read >> s.read_ns;
      s.written = written != 0;
      s.failure = after_tab(line);
      f.seen[std::size_t(a)][std::size_t(b)] = s;
    } else if (kind == 'a') {
      l >> f.arrived[std::size_t(a)][std::size_t(b)];
      f.detail[std::size_t(a)][std::size_t(b)] = after_tab(line);
    }
  }
}

std::string mib(std::size_t bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%g MiB", double(bytes) / double(1 << 20));
  return s;
}

const char* path_name(int path) { return path == 0 ? "copy-engine" : "SM-store"; }

// What is wrong with writer `from`'s region `path` as `to` holds it ("" when every word is right).
std::string bulk_problem(const std::vector<std::uint64_t>& got, std::uint32_t token, int from, int to, int path,
                         std::size_t bulk) {
  const std::size_t words = bulk / sizeof(std::uint64_t);
  if (got.size() != words)
    return "the " + mib(bulk) + " " + path_name(path) + " transfer came back as " + std::to_string(got.size()) +
           " words, not " + std::to_string(words);
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < words; ++i)
    if (got[i] != peer_bulk_word(token, from, to, path, i) && wrong++ == 0) first = i;
  if (wrong == 0) return {};
  return "the " + mib(bulk) + " " + path_name(path) + " transfer through the mapping arrived corrupted: " +
         std::to_string(wrong) + " of " + std::to_string(words) + " words wrong, the first at byte " +
         std::to_string(first * sizeof(std::uint64_t)) + " (" + hex(got[first]) + ", not " +
         hex(peer_bulk_word(token, from, to, path, first)) + ")";
}

std::string ms(double s) { return std::to_string(int(s * 1000 + 0.5)) + " ms"; }

}  // namespace

PeerAccess check_peer_access(PeerProbe& probe, int world, const std::function<bool(int)>& drives,
                             const std::vector<std::vector<int>>& reported, World& processes, double bound_s,
                             std::uint32_t token, std::string method, std::string unit, PeerCheckOptions opt) {
  using Clock = std::chrono::steady_clock;
  const std::size_t bulk = opt.bulk_bytes;
  Findings f;
  f.seen.assign(std::size_t(world), std::vector<PeerSeen>(std::size_t(world)));
  f.arrived.assign(std::size_t(world), std::vector<int>(std::size_t(world), -1));
  f.detail.assign(std::size_t(world), std::vector<std::string>(std::size_t(world)));
  std::vector<std::string> failed(static_cast<std::size_t>(world));  // this process's ranks whose probe is unusable: why
  // One backend call for rank r: an Error (HangError included) marks r, and a fatal fault stops
  // every later call (a dead context answers nothing; the fabric ends the run with it).
  auto guarded = [&](int r, const std::string& step, const std::function<void()>& call) {
    if (!f.fatal.empty()) {
      if (failed[std::size_t(r)].empty()) failed[std::size_t(r)] = "not checked: a GPU faulted (" + f.fatal + ")";
      return false;
    }
    try {
      call();
      return true;
    } catch (const std::exception& e) {
      if (failed[std::size_t(r)].empty()) failed[std::size_t(r)] = step + ": " + e.what();
    }
    try {
      f.fatal = probe.fatal(r);
    } catch (const std::exception& e) {
      f.fatal = e.what();
    }
    return false;
  };
  auto peers_of = [&](int r) {
    std::vector<int> peers;
    for (int p = 0; p < world; ++p)
      if (p != r && is_reported(reported, r, p)) peers.push_back(p);
    return peers;
  };

  for (int r = 0; r < world; ++r)
    if (drives(r)) guarded(r, "preparing the probe memory", [&] { probe.prepare(r, peer_read_word(token, r)); });
  processes.barrier("the peer-to-peer check: probe memory prepared");

  // Step 2: every rank's probe started, then each waited for, bounded.
  std::vector<int> running;
  double finish_s = 0;
  for (int r = 0; r < world; ++r) {
    const std::vector<int> peers = drives(r) ? peers_of(r) : std::vector<int>{};
    if (peers.empty() || !failed[std::size_t(r)].empty()) continue;
    std::vector<std::uint64_t> words;
    for (int p : peers) words.push_back(peer_write_word(token, r, p));
    if (guarded(r, "starting the probe", [&] { probe.start(r, peers, words, bound_s, bulk, token); }))
      running.push_back(r);
    finish_s = std::max(finish_s, opt.finish_s >= 0 ? opt.finish_s : double(peers.size()) * bound_s * 2 + 5.0);
  }
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(finish_s));
  while (!running.empty()) {
    std::erase_if(running, [&](int r) {
      bool done = false;
      if (!guarded(r, "waiting for the probe", [&] { done = probe.finished(r); })) return true;
      if (done) guarded(r, "reading what the probe saw", [&] {
        const std::vector<int> peers = peers_of(r);
        const std::vector<PeerSeen> seen = probe.seen(r);
        for (std::size_t i = 0; i < peers.size() && i < seen.size(); ++i)
          f.seen[std::size_t(r)][std::size_t(peers[i])] = seen[i];
      });
      return done;
    });
    if (running.empty()) break;
    if (Clock::now() > deadline) {
      for (int r : running)
        failed[std::size_t(r)] = "the probe did not finish within " + ms(finish_s) +
                                 ": a load or store through the peer mapping never completed (the probe is left "
                                 "running; its memory stays allocated)";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (int r = 0; r < world; ++r)
    if (!failed[std::size_t(r)].empty())
      for (int p : peers_of(r)) f.seen[std::size_t(r)][std::size_t(p)].failure = failed[std::size_t(r)];
  processes.barrier("the peer-to-peer check: writes done");

  // Step 3: each rank's header read locally, polled until every expected word is in, or the bound.
  for (int p = 0; p < world; ++p) {
    if (!drives(p)) continue;
    std::vector<int> writers;
    for (int q = 0; q < world; ++q)
      if (q != p && is_reported(reported, q, p)) writers.push_back(q);
    if (writers.empty()) continue;
    auto expected = [&](const std::vector<std::uint64_t>& h, int q) {
      return h.at(std::size_t(q)) == peer_write_word(token, q, p) &&
             (bulk == 0 || (h.at(kPeerCopyFlag0 + std::size_t(q)) == peer_bulk_flag(token, q, p, 0) &&
                            h.at(kPeerStoreFlag0 + std::size_t(q)) == peer_bulk_flag(token, q, p, 1)));
    };
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(bound_s));
    std::vector<std::uint64_t> h;
    bool read = false;
    for (;;) {  // a write may still be on its way
      if (!(read = guarded(p, "reading the probe memory", [&] { h = probe.header(p); }))) break;
      bool all = h.size() >= kPeerProbeWords;
      for (int q : writers) all = all && expected(h, q);
      if (all || Clock::now() > until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!read || h.size() < kPeerProbeWords) {
      for (int q : writers)
        f.detail[std::size_t(q)][std::size_t(p)] =
            "its memory could not be read back (" + (read ? std::string("a short header") : failed[std::size_t(p)]) + ")";
      continue;
    }
    for (int q : writers) {
      const bool arrived = h[std::size_t(q)] == peer_write_word(token, q, p);
      f.arrived[std::size_t(q)][std::size_t(p)] = arrived ? 1 : 0;
      if (!arrived || bulk == 0) continue;
      for (int path = 0; path < 2 && f.detail[std::size_t(q)][std::size_t(p)].empty(); ++path) {
        std::string& d = f.detail[std::size_t(q)][std::size_t(p)];
        if (h[(path == 0 ? kPeerCopyFlag0 : kPeerStoreFlag0) + std::size_t(q)] != peer_bulk_flag(token, q, p, path)) {
          d = "the flag after the " + mib(bulk) + " " + path_name(path) + " transfer did not arrive within " +
              ms(bound_s);
          continue;
        }
        std::vector<std::uint64_t> got;
        if (guarded(p, "reading a bulk region", [&] { got = probe.bulk_region(p, q, path, bulk); }))
          d = bulk_problem(got, token, q, p, path, bulk);
        else
          d = "its " + std::string(path_name(path)) + " region could not be read back (" + failed[std::size_t(p)] + ")";
      }
    }
  }
  for (const std::string& theirs : processes.all_gather(encode(f, world, drives), "gathering the peer-to-peer check"))
    decode(theirs, f);

  PeerAccess m(world, std::move(method), bound_s, std::move(unit));
  if (opt.fatal != nullptr) *opt.fatal = f.fatal;
  for (int a = 0; a < world; ++a)
    for (int b = 0; b < world; ++b) {
      if (a == b) continue;
      PeerLink& l = m.at(a, b);
      if (!is_reported(reported, a, b)) {
        l.path = PeerPath::no_p2p;
        continue;
      }
      const PeerSeen& s = f.seen[std::size_t(a)][std::size_t(b)];
      const std::string& found = f.detail[std::size_t(a)][std::size_t(b)];
      const bool arrived = f.arrived[std::size_t(a)][std::size_t(b)] == 1;
      const bool read_ok = s.read == peer_read_word(token, b);
      l.write_us = s.write_ns >= 0 ? s.write_ns * 1e-3 : -1;
      l.read_us = s.read_ns >= 0 ? s.read_ns * 1e-3 : -1;
      if (arrived && read_ok && s.failure.empty() && found.empty()) {
        l.path = PeerPath::ok;
        continue;
      }
      l.path = PeerPath::broken;
      if (!s.failure.empty())
        l.detail = s.failure;
      else if (!found.empty())
        l.detail = found;
      else if (!arrived)
        l.detail = "a write through the mapping did not arrive within " + ms(bound_s);
      else
        l.detail = "a read through the mapping returned " + hex(s.read) + ", not " + hex(peer_read_word(token, b));
    }
  return m;
}

}  // namespace arbench
