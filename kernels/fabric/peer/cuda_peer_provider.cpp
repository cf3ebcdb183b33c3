#include "kernels/fabric/peer/cuda_peer_provider.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

#include "kernels/fabric/peer/fd_exchange.hpp"

namespace arbench {
namespace {

void* as_pointer(Address a) { return reinterpret_cast<void*>(a); }

// Agreement tokens of map_processes: a refusal names its pair, anything else is a failure.
std::string refusal_token(int user, int owner, const std::string& why) {
  return "R" + std::to_string(user) + " " + std::to_string(owner) + " " + why;
}

[[noreturn]] void throw_token(const std::string& token) {
  if (!token.empty() && token[0] == 'R') {
    const std::size_t a = token.find(' '), b = token.find(' ', a + 1);
    throw PeerMapRefused(std::stoi(token.substr(1, a - 1)), std::stoi(token.substr(a + 1, b - a - 1)),
                         token.substr(b + 1));
  }
  throw CaseError(token.empty() ? token : token.substr(1));
}

}  // namespace

CudaPeerProvider::CudaPeerProvider(PeerDriver& driver, std::vector<int> devices, int first_rank, int world,
                                   World& processes, double timeout_s)
    : driver_(driver), devices_(std::move(devices)), first_rank_(first_rank), world_(world), processes_(processes),
      timeout_s_(timeout_s) {
  const bool exportable = multi_process();
  std::string why;
  std::size_t g = 1;
  for (int d : std::set<int>(devices_.begin(), devices_.end())) {
    try {
      why = driver_.unsupported(d, exportable);
      if (why.empty()) g = std::lcm(g, driver_.granularity(d, exportable));
    } catch (const std::exception& e) {  // caught: the processes must reach the agreement below
      why = e.what();
    }
    if (!why.empty()) {
      why = "GPU " + std::to_string(d) + " cannot hold the cuda provider's arena: " + why;
      break;
    }
  }
  if (exportable) {
    why = first_failure(processes_, why, "checking the GPUs for the cuda provider");
    // Every process cuts chunks of the same size: the granularity all of them accept.
    if (why.empty())
      for (const std::string& other : processes_.all_gather(std::to_string(g), "agreeing on the arena's granularity"))
        g = std::lcm(g, std::size_t(std::stoull(other)));
  }
  if (!why.empty()) throw EnvironmentError(why);
  granularity_ = g;
  if (exportable) {  // every rank's GPU, by bus id, as this process numbers it
    std::string mine;
    try {
      mine = driver_.bus_id(devices_.at(0));
    } catch (const std::exception&) {  // unknown: the import is left to cuMemSetAccess
    }
    for (const std::string& id : processes_.all_gather(mine, "exchanging the GPUs' bus ids for the cuda provider")) {
      int d = -1;
      try {
        d = id.empty() ? -1 : driver_.device_of_bus_id(id);
      } catch (const std::exception&) {
      }
      peer_devices_.push_back(d);
    }
  }
}

std::string CudaPeerProvider::pair_text(int user, int owner) const {
  const auto dev = [&](int rank) {
    const int i = rank - first_rank_;
    int d = i >= 0 && i < int(devices_.size()) ? devices_[std::size_t(i)] : -1;
    if (d < 0 && rank >= 0 && rank < int(peer_devices_.size())) d = peer_devices_[std::size_t(rank)];
    return d >= 0 ? "GPU " + std::to_string(d) + " (rank " + std::to_string(rank) + ")" : "rank " + std::to_string(rank);
  };
  return dev(user) + " cannot map the memory of " + dev(owner);
}

Address CudaPeerProvider::map_handle(MemHandle h, std::size_t bytes) {
  Address va = 0;
  try {
    va = driver_.reserve(bytes, granularity_);
  } catch (...) {
    driver_.release(h);
    throw;
  }
  try {
    driver_.map(va, bytes, h);
  } catch (...) {
    driver_.free_address(va, bytes);
    driver_.release(h);
    throw;
  }
  mappings_.push_back({va, bytes, h});
  return va;
}

Address CudaPeerProvider::map_new(int device, std::size_t bytes) {
  const Address va = map_handle(driver_.create(device, bytes, multi_process()), bytes);
  if (std::string why = driver_.set_access(va, bytes, device); !why.empty())
    throw CaseError("GPU " + std::to_string(device) + " was refused access to its own arena chunk: " + why);
  return va;
}

void CudaPeerProvider::release_from(std::size_t first) noexcept {
  while (mappings_.size() > first) {
    const Mapping m = mappings_.back();
    mappings_.pop_back();
    driver_.unmap(m.va, m.bytes);
    driver_.free_address(m.va, m.bytes);
    driver_.release(m.handle);
  }
}

void CudaPeerProvider::release_all() noexcept { release_from(0); }

PeerChunk CudaPeerProvider::map(std::size_t bytes) {
  if (bytes == 0 || bytes % granularity_ != 0)
    throw CaseError("an arena chunk of " + std::to_string(bytes) + " bytes is not a multiple of the granularity " +
                    std::to_string(granularity_));
  return multi_process() ? map_processes(bytes) : map_one_process(bytes);
}

PeerChunk CudaPeerProvider::map_one_process(std::size_t bytes) {
  const std::size_t mark = mappings_.size(), n = devices_.size();
  try {
    std::vector<Address> va(n);
    for (std::size_t i = 0; i < n; ++i) va[i] = map_new(devices_[i], bytes);
    PeerChunk c;
    c.bytes = bytes;
    c.base.assign(n, std::vector<void*>(std::size_t(world_), nullptr));
    for (std::size_t owner = 0; owner < n; ++owner) {
      std::set<int> granted = {devices_[owner]};
      for (std::size_t user = 0; user < n; ++user) {
        const int d = devices_[user];
        if (!granted.count(d)) {
          std::string why = driver_.peer_refused(d, devices_[owner]);
          if (why.empty()) why = driver_.set_access(va[owner], bytes, d);
          if (!why.empty()) {
            const int u = first_rank_ + int(user), o = first_rank_ + int(owner);
            throw PeerMapRefused(u, o, pair_text(u, o) + ": " + why);
          }
          granted.insert(d);
        }
        c.base[user][std::size_t(first_rank_) + owner] = as_pointer(va[owner]);
      }
    }
    return c;
  } catch (...) {
    release_from(mark);
    throw;
  }
}

PeerChunk CudaPeerProvider::map_processes(std::size_t bytes) {
  const std::size_t mark = mappings_.size();
  const int me = first_rank_, device = devices_.at(0);
  PeerChunk c;
  c.bytes = bytes;
  c.base.assign(1, std::vector<void*>(std::size_t(world_), nullptr));
  std::string failure;
  UniqueFd mine;
  try {
    c.base[0][std::size_t(me)] = as_pointer(map_new(device, bytes));
    mine = UniqueFd(driver_.export_fd(mappings_.back().handle));
  } catch (const std::exception& e) {
    failure = "F" + std::string(e.what());
  }
  std::vector<UniqueFd> fds;
  try {
    failure = first_failure(processes_, failure, "creating the arena chunks");
    if (!failure.empty()) throw_token(failure);
    fds = all_gather_fds(processes_, mine.get(), timeout_s_, "sharing the arena chunks between the processes");
  } catch (...) {
    release_from(mark);
    throw;
  }
  for (int p = 0; p < world_ && failure.empty(); ++p) {
    if (p == me) continue;
    try {
      // Asked first: a pair without P2P is refused by name, before anything of the peer's is imported.
      const int theirs = p < int(peer_devices_.size()) ? peer_devices_[std::size_t(p)] : -1;
      if (theirs >= 0 && theirs != device)
        if (std::string why = driver_.peer_refused(device, theirs); !why.empty()) {
          failure = refusal_token(me, p, pair_text(me, p) + ": " + why);
          continue;
        }
      const Address va = map_handle(driver_.import_fd(fds[std::size_t(p)].get()), bytes);
      if (std::string why = driver_.set_access(va, bytes, device); !why.empty())
        failure = refusal_token(me, p, pair_text(me, p) + ": " + why);
      else
        c.base[0][std::size_t(p)] = as_pointer(va);
    } catch (const std::exception& e) {
      failure = "F" + std::string(e.what());
    }
  }
  fds.clear();  // the mappings hold the memory; the descriptors are no longer needed
  failure = first_failure(processes_, failure, "mapping the peers' arena chunks");
  if (!failure.empty()) {
    release_from(mark);
    throw_token(failure);
  }
  return c;
}

}  // namespace arbench
