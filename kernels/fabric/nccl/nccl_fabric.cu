#include "kernels/fabric/nccl/nccl_fabric.hpp"

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/host/peer_check/peer_fallback.hpp"
#include "kernels/fabric/nccl/lsa_team.hpp"
#include "kernels/fabric/nccl/nccl_group.hpp"
#include "kernels/fabric/nccl/nccl_setup.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"
#include "kernels/fabric/nccl/nccl_windows.hpp"

namespace arbench {
namespace {

std::vector<int> first_devices(int world) {
  std::vector<int> d(world);
  for (int i = 0; i < world; ++i) d[i] = i;
  return d;
}

std::string nccl_error_text(const NcclApi& api, ncclResult_t r) {
  const char* last = api.GetLastError(nullptr);
  return std::string(api.GetErrorString(r)) + (last && *last ? std::string(" (") + last + ")" : std::string());
}

}  // namespace

NcclFabric::NcclFabric(int world, double timeout_s, std::map<std::string, std::string> env, BrokenPair planted,
                       const NcclApi* api)
    : CudaFabric(first_devices(world), timeout_s), api_(api ? *api : NcclApi::get()), env_(std::move(env)),
      planted_(planted) {
  // The watchdog aborts whatever communicators exist when a blocking NCCL call overruns.
  dog_ = std::make_unique<Watchdog>([this] {
    for (auto c : comms_)
      if (c) api_.CommAbort(c);
  });
  create_communicators();
  probe_symmetric();
  check_peers();  // through a probe window, or on bare devices when there are no windows
  std::unique_ptr<RankBuffers> flags;
  std::string why = symmetric_reason_;
  if (why.empty()) {
    try {
      flags = alloc(StartGate::kGateFlagBytes, Placement::symmetric);
    } catch (const NcclGroupError& e) {  // the registration failed in the group: fresh communicators
      symmetric_reason_ = why = e.what();
      recreate_communicators();
      unusable_.clear();
    } catch (const CaseError& e) {  // e.g. a window without peer pointers
      symmetric_reason_ = why = e.what();
    }
  }
  build_gate(std::move(flags), why);
}

void NcclFabric::create_communicators() {
  const int n = world();
  comms_.assign(std::size_t(n), nullptr);
  ncclUniqueId id{};
  ARB_NCCL_CHECK(api_, GetUniqueId(&id));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  ScopedEnv scoped(env_);  // NCCL reads NCCL_ALGO / NCCL_PROTO while it creates them
  // What ncclCommInitAll does, with the communicators' handles known while NCCL creates them (at
  // ncclGroupEnd), so the watchdog can abort them.
  ncclResult_t failed = api_.GroupStart();
  for (int i = 0; i < n && failed == ncclSuccess; ++i) {
    ARB_CUDA_CHECK(cudaSetDevice(device_of(i)));
    failed = api_.CommInitRankConfig(&comms_[std::size_t(i)], n, id, i, &config);
  }
  if (failed != ncclSuccess) abandon_group(api_);
  const ncclResult_t ended = dog_->guard(
      "creating the NCCL communicators of " + std::to_string(n) + " GPUs (ncclCommInitRankConfig, at ncclGroupEnd)",
      nccl_setup_bound_s(timeout_s()), [&] { return api_.GroupEnd(); });
  const ncclResult_t r = failed != ncclSuccess ? failed : ended;
  if (r != ncclSuccess) {
    comms_.assign(std::size_t(n), nullptr);
    throw CaseError("creating the NCCL communicators failed: " + nccl_error_text(api_, r));
  }
}

void NcclFabric::recreate_communicators() {
  for (auto c : comms_)
    if (c) api_.CommAbort(c);  // abort: a queued group call must not run
  create_communicators();
}

NcclFabric::~NcclFabric() {
  release_gate();  // its flags are windows of comms_
  if (aborted()) return;  // ncclCommAbort freed the communicators
  const bool idle = quiesce();
  for (auto c : comms_)
    if (c) idle ? api_.CommDestroy(c) : api_.CommAbort(c);
}

void NcclFabric::abort() {
  if (aborted()) return;
  CudaFabric::abort();
  for (auto c : comms_)
    if (c) api_.CommAbort(c);
}

std::string NcclFabric::describe() const {
  std::string s = std::to_string(world()) + " GPUs, " + nccl_api_text(api_);
  for (const auto& [k, v] : env_) s += " " + k + "=" + v;
  return s + "; start gate: " + gate_description();
}

void NcclFabric::probe_symmetric() {
  // A library beside the default one may lack symmetric memory (nccl_features.hpp).
  if (std::string why = nccl_symmetric_missing(api_.version, nccl_symmetric_entries(api_)); !why.empty()) {
    symmetric_reason_ = why;
    return;
  }
  if (std::string why = nccl_device_api_mismatch(NCCL_VERSION_CODE, api_.version); !why.empty()) {
    symmetric_reason_ = why;
    return;
  }
  for (int a = 0; a < world(); ++a)
    for (int b = 0; b < world(); ++b) {
      int ok = 1;
      if (a != b && cudaDeviceCanAccessPeer(&ok, a, b) == cudaSuccess && !ok) {
        symmetric_reason_ = "GPU " + std::to_string(a) + " cannot access GPU " + std::to_string(b) +
                            " peer-to-peer (cudaDeviceCanAccessPeer), so NCCL symmetric memory is unavailable";
        return;
      }
    }
  std::vector<ncclDevComm_t> dev(world());
  const ncclDevCommRequirements_t reqs = no_requirements();
  const ncclResult_t r = grouped_setup(
      world(), ncclSuccess, [&] { return api_.GroupStart(); },
      [&](int i) { return api_.DevCommCreate(comms_[i], &reqs, &dev[i]); }, [&] { abandon_group(api_); },
      [&] {
        return dog_->guard("creating the NCCL device communicators (ncclDevCommCreate, at ncclGroupEnd)",
                           nccl_setup_bound_s(timeout_s()), [&] { return api_.GroupEnd(); });
      });
  if (r != ncclSuccess) {
    symmetric_reason_ = "ncclDevCommCreate failed: " + nccl_error_text(api_, r);
    // Symmetric memory stays off, and the communicators are replaced: those whose creation went
    // into the group keep it queued, and the next group (the first all-reduce) would run it on
    // those communicators only.
    recreate_communicators();
    return;
  }
  // ncclGetLsaPointer indexes the LSA team: it must be the world, at the world's ranks.
  for (int i = 0; i < world() && symmetric_reason_.empty(); ++i)
    symmetric_reason_ = lsa_team_problem(world(), i, dev[i].lsaSize, dev[i].lsaRank);
  for (int i = 0; i < world(); ++i) api_.DevCommDestroy(comms_[i], &dev[i]);
}

void NcclFabric::check_peers() {
  const std::vector<int> devices = first_devices(world());
  PeerCheckOptions opt;
  opt.bulk_bytes = kPeerBulkBytes;
  FabricPeerCheck how;
  how.world = world();
  how.setup_failure = symmetric_reason_;
  how.map_probe_memory = [&]() -> std::unique_ptr<RankBuffers> {
    try {
      return alloc(peer_probe_bytes(world(), opt.bulk_bytes), Placement::symmetric);
    } catch (const NcclGroupError& e) {  // the registration failed in the group: fresh communicators
      recreate_communicators();
      unusable_.clear();
      throw CaseError(e.what());
    }
  };
  how.check_mapped = [&](const RankBuffers& mem) {
    CudaPeerProbe probe(devices, 0, mem, planted_);
    CheckedPeers c;
    opt.fatal = &c.fatal;
    c.access = check_peer_access(probe, world(), [](int) { return true; }, {}, solo_world(), kPeerCheckBound_s, 1,
                                 "NCCL symmetric windows (ncclGetLsaPointer)", "GPU", opt);
    c.idle = probe.idle();
    return c;
  };
  // No windows (NCCL refuses them unless every pair is CUDA-P2P): the pairs CUDA reports are still
  // what `nccl` and the island variants use, so they are checked on bare devices, and kept.
  how.check_bare = [&] { return check_bare_devices(devices, planted_); };
  PeerCheckOutcome out = run_fabric_peer_check(how);
  peer_access_ = std::move(out.access);
  symmetric_reason_ = out.symmetric_reason;
  if (out.stuck) (void)out.probe_memory.release();  // a probe kernel may still touch the window
}

std::unique_ptr<RankBuffers> NcclFabric::alloc_symmetric(std::size_t bytes) {
  try {
    return std::make_unique<NcclWindows>(*this, api_, comms_, bytes, *dog_);
  } catch (const NcclGroupError& e) {
    unusable_ = e.what();  // the harness replaces this fabric after the case
    throw;
  }
}

void NcclFabric::begin_op_group() { ARB_NCCL_CHECK(api_, GroupStart()); }
void NcclFabric::end_op_group() {
  // NCCL connects the peers of an algorithm at its first collective, here: bounded.
  const ncclResult_t r = dog_->guard("an NCCL group of ops (NCCL connects its peers at the first collective)",
                                     nccl_setup_bound_s(timeout_s()), [&] { return api_.GroupEnd(); });
  if (r != ncclSuccess) throw_nccl(api_, r, "ncclGroupEnd", __FILE__, __LINE__);
}
void NcclFabric::abandon_op_group() {
  abandon_group(api_);     // the group fails: the calls that went in run on no rank
  (void)api_.GroupEnd();  // and is closed (its error is the abandoned group's)
}

}  // namespace arbench
