// The cuda provider's handle exchange between real processes, with fake handles: run under
// `mpirun -np N` (N = 2..4) by tests/mpi/test_mpi_peer_exchange.cpp. Each process's "GPU
// memory" is a memfd (tests/host/fabric/fake_peer_driver.hpp); its descriptors travel over the
// Unix-domain socket (kernels/fabric/peer/fd_exchange.cpp) and each process maps every peer's, so
// what a process reads through a peer pointer is what that peer wrote. Then the failures: a
// refused pair fails every process alike, naming the pair, with nothing left mapped; a descriptor
// that never comes fails every process alike within the bound. Prints one line per check and
// exits 0 only when every one passed.
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "../../host/fabric/fake_peer_driver.hpp"
#include "arbench/core/errors.hpp"
#include "kernels/fabric/peer/cuda_peer_provider.hpp"
#include "kernels/fabric/peer/fd_exchange.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"
#include "mpi/start_world.hpp"

using namespace arbench;
using arbench::testing::FakePeerDriver;

namespace {

constexpr std::size_t kGranule = 64 * 1024;
int failures = 0;

void check(World& w, bool ok, const std::string& what) {
  if (!ok) ++failures;
  std::cout << "process " << w.rank() << ": " << (ok ? "ok   " : "FAIL ") << what << "\n" << std::flush;
}

std::unique_ptr<SymmArena> arena_of(FakePeerDriver& d, World& w) {
  ArenaHooks hooks;
  hooks.zero = [](int, void* p, std::size_t bytes) { std::memset(p, 0, bytes); };
  hooks.idle = [] { return true; };
  return std::make_unique<SymmArena>(
      std::make_unique<CudaPeerProvider>(d, std::vector<int>{w.rank()}, w.rank(), w.size(), w, 10.0),
      std::move(hooks), ArenaRanks{w.rank(), 1, w.size()}, w);
}

void every_peer_is_mapped(World& w) {
  FakePeerDriver d(kGranule);
  auto arena = arena_of(d, w);
  auto flags = arena->alloc(32);
  auto big = arena->alloc(2 * kGranule + 1);  // a second chunk, exchanged too
  std::memset(big->local(w.rank()), 'a' + w.rank(), big->bytes());
  w.barrier("every process wrote its slice");
  bool same = true;
  for (int p = 0; p < w.size(); ++p) {
    const auto* peer = static_cast<const unsigned char*>(big->peer(w.rank(), p));
    same = same && peer[0] == 'a' + p && peer[big->bytes() - 1] == 'a' + p;
  }
  check(w, same, "reads every peer's slice through its own mapping of the peer's chunk");
  check(w, arena->chunks() == 2 && d.live_mappings() == 2 * w.size(), "2 chunks, each mapped from every process");
  w.barrier("every process read");
  flags.reset();
  big.reset();
  arena.reset();
  check(w, d.live_mappings() == 0 && d.live_allocations() == 0 && d.live_reservations() == 0,
        "released everything it mapped");
}

void a_refused_pair_fails_everyone(World& w) {
  FakePeerDriver d(kGranule);
  const int user = w.size() - 1, owner = 0;
  if (w.rank() == user) d.access_refused = {{user, owner}};
  auto arena = arena_of(d, w);
  std::string what;
  int u = -1, o = -1;
  try {
    (void)arena->alloc(64);
  } catch (const PeerMapRefused& e) {
    what = e.what();
    u = e.user();
    o = e.owner();
  }
  check(w, u == user && o == owner, "every process throws PeerMapRefused naming the pair (" + what + ")");
  const auto all = w.all_gather(what, "comparing the refusals");
  bool same = true;
  for (const auto& a : all) same = same && a == all[0];
  check(w, same, "with the same message");
  check(w, d.live_mappings() == 0 && d.live_allocations() == 0, "and nothing left mapped");
}

void a_missing_descriptor_is_bounded(World& w) {
  FakePeerDriver d(kGranule);
  const MemHandle h = d.create(w.rank(), kGranule, true);
  UniqueFd fd(d.export_fd(h));
  const auto t0 = std::chrono::steady_clock::now();
  std::string what;
  try {
    (void)all_gather_fds(w, w.rank() == w.size() - 1 ? -1 : fd.get(), 1.0, "probing a missing descriptor");
  } catch (const CaseError& e) {
    what = e.what();
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  check(w, what.find("no descriptor from process(es) " + std::to_string(w.size() - 1)) != std::string::npos,
        "a descriptor that never comes fails the exchange (" + what + ")");
  check(w, took < 30, "within the bound (" + std::to_string(took) + " s)");
  d.release(h);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    auto world = start_world(&argc, &argv, detect_launch());
    World& w = *world;
    w.set_wait_bound_s(60);
    if (!w.multi_process()) {
      std::cout << "run me under mpirun -np 2..4\n";
      return 2;
    }
    for (int round = 0; round < 3; ++round) every_peer_is_mapped(w);
    a_refused_pair_fails_everyone(w);
    a_missing_descriptor_is_bounded(w);
    std::vector<double> failed = {double(failures)};
    w.max(failed, "gathering the results");
    if (w.rank() == 0) std::cout << (failed[0] == 0 ? "ALL OK" : "SOME FAILED") << "\n";
    return failed[0] == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "probe error: " << e.what() << "\n";
    return 3;
  }
}
