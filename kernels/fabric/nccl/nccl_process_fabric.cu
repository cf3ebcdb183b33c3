#include "kernels/fabric/nccl/nccl_process_fabric.hpp"

#include <cstring>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/nccl/lsa_team.hpp"
#include "kernels/fabric/nccl/nccl_group.hpp"
#include "kernels/fabric/nccl/nccl_setup.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"
#include "kernels/fabric/nccl/nccl_windows.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/host/peer_check/peer_fallback.hpp"
#include "kernels/fabric/cuda/process/process_device.hpp"
#include "kernels/fabric/nccl/watchdog.hpp"

namespace arbench {
namespace {

std::string nccl_failure(const NcclApi& api, ncclResult_t r, const char* call) {
  if (r == ncclSuccess) return {};
  const char* last = api.GetLastError(nullptr);
  return std::string(call) + " failed: " + api.GetErrorString(r) +
         (last && *last ? std::string(" (") + last + ")" : std::string());
}

// `failure` of this process, or the lowest failing process's, thrown on every process as an
// environment problem (exit 3).
void agree_or_throw(World& w, const std::string& failure, const char* what) {
  const std::string agreed = first_failure(w, failure, what);
  if (!agreed.empty()) throw_agreed("E3:" + agreed);
}

}  // namespace

NcclProcessFabric::NcclProcessFabric(World& processes, double timeout_s, std::map<std::string, std::string> env,
                                     BrokenPair planted, const NcclApi* api)
    : CudaFabric(agree_process_device(processes), processes.rank(), processes.size(), processes, timeout_s),
      api_(api ? *api : NcclApi::get()), env_(std::move(env)), planted_(planted) {
  // NCCL waits inside its setup calls for every process; the watchdog bounds them.
  dog_ = std::make_unique<Watchdog>([this] {
    if (comm_) api_.CommAbort(comm_);
  });
  create_communicator(processes);
  symmetric_reason_ = symmetric_problem(processes);
  if (symmetric_reason_.empty()) check_peers(processes);
  std::unique_ptr<RankBuffers> flags;
  std::string failure;
  if (symmetric_reason_.empty()) {
    try {
      flags = alloc(StartGate::kGateFlagBytes, Placement::symmetric);
    } catch (const CaseError& e) {  // e.g. a window without peer pointers
      failure = e.what();
    }
    symmetric_reason_ = first_failure(processes, failure, "registering the start gate's window");
    if (!symmetric_reason_.empty()) flags.reset();
  }
  build_gate(std::move(flags), symmetric_reason_);
}

void NcclProcessFabric::create_communicator(World& w) {
  ncclUniqueId id{};
  std::string failure;
  if (w.rank() == 0) failure = nccl_failure(api_, api_.GetUniqueId(&id), "ncclGetUniqueId");
  agree_or_throw(w, failure, "creating the NCCL id");
  std::string bytes(reinterpret_cast<const char*>(&id), sizeof id);
  w.broadcast(bytes, 0, "sharing the NCCL id");
  std::memcpy(&id, bytes.data(), sizeof id);

  // Every process is ready (its GPU current) before any enters NCCL's collective creation: one
  // that failed here would leave the others inside it.
  std::string not_ready;
  try {
    ARB_CUDA_CHECK(cudaSetDevice(device_of(w.rank())));
  } catch (const Error& e) {
    not_ready = e.what();
  }
  agree_or_throw(w, not_ready, "getting ready to create the NCCL communicator");
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;  // a non-blocking communicator would make every later NCCL call pollable
  ncclResult_t r;
  {
    ScopedEnv scoped(env_);
    // NCCL waits inside for every process; a missing one must not keep the others there forever.
    r = dog_->guard("creating the NCCL communicator (ncclCommInitRankConfig)", nccl_setup_bound_s(timeout_s()),
                    [&] { return api_.CommInitRankConfig(&comm_, w.size(), id, w.rank(), &config); });
  }
  if (r != ncclSuccess) comm_ = nullptr;
  agree_or_throw(w, nccl_failure(api_, r, "ncclCommInitRankConfig"), "creating the NCCL communicator");
}

std::string NcclProcessFabric::symmetric_problem(World& w) {
  const WorldLayout& l = w.layout();
  if (l.nodes > 1)
    return "the custom kernels load and store their peers' memory, and this run spans " + std::to_string(l.nodes) +
           " nodes: a GPU on another node is not reachable that way (NCCL runs across nodes)";
  // A library beside the default one may lack symmetric memory (nccl_features.hpp); every process
  // loaded the same one.
  std::string why = nccl_symmetric_missing(api_.version, nccl_symmetric_entries(api_));
  if (why.empty()) why = nccl_device_api_mismatch(NCCL_VERSION_CODE, api_.version);
  // The kernels size their grids by one GPU's SM count (Fabric::device_of): the GPUs must match.
  cudaDeviceProp prop{};
  std::string model;  // a process that cannot tell still reaches the collective below
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, device_of(w.rank())); e == cudaSuccess)
    model = std::string(prop.name) + " with " + std::to_string(prop.multiProcessorCount) + " SMs";
  else
    model = std::string("a GPU CUDA cannot describe (") + cudaGetErrorName(e) + ")";
  const auto models = w.all_gather(model, "comparing the processes' GPUs");
  for (int r = 0; r < w.size() && why.empty(); ++r)
    if (models[std::size_t(r)] != models[0])
      why = "the processes' GPUs differ (" + models[0] + " on process 0, " + models[std::size_t(r)] + " on process " +
            std::to_string(r) + "), and the custom kernels size every rank's grid alike";
  why = first_failure(w, why, "checking symmetric memory");
  if (!why.empty()) return why;
  // ncclDevCommCreate is collective: every process calls it, or (above) none does.
  ncclDevComm_t dev{};
  const ncclDevCommRequirements_t reqs = no_requirements();
  const ncclResult_t created = dog_->guard("creating the NCCL device communicator (ncclDevCommCreate)",
                                           nccl_setup_bound_s(timeout_s()),
                                           [&] { return api_.DevCommCreate(comm_, &reqs, &dev); });
  std::string failure = nccl_failure(api_, created, "ncclDevCommCreate");
  if (created == ncclSuccess) {
    // ncclGetLsaPointer indexes the LSA team: it must be the world, at the world's ranks (NCCL's
    // node split can differ from the launcher's, e.g. containers with different host names).
    failure = lsa_team_problem(w.size(), w.rank(), dev.lsaSize, dev.lsaRank);
    api_.DevCommDestroy(comm_, &dev);
  }
  return first_failure(w, failure, "probing symmetric memory");
}

// The functional peer check across the processes (kernels/fabric/host/peer_check/peer_check.hpp), through a
// probe window; every process gets the same matrix. Collective.
void NcclProcessFabric::check_peers(World& w) {
  std::unique_ptr<RankBuffers> probe_memory;
  std::string failure;
  try {
    probe_memory = alloc(kPeerProbeBytes, Placement::symmetric);
  } catch (const CaseError& e) {
    failure = e.what();
  }
  symmetric_reason_ = first_failure(w, failure, "registering the peer check's window");
  if (!symmetric_reason_.empty()) return;
  CudaPeerProbe probe({device_of(w.rank())}, w.rank(), *probe_memory, planted_);
  std::string fatal;
  PeerCheckOptions opt;
  opt.fatal = &fatal;
  peer_access_ = check_peer_access(probe, w.size(), [&](int r) { return r == w.rank(); }, {}, w, kPeerCheckBound_s, 1,
                                   "NCCL symmetric windows (ncclGetLsaPointer), one process per GPU", "GPU", opt);
  if (!probe.idle()) (void)probe_memory.release();  // a probe kernel may still touch the window
  if (!fatal.empty()) throw DeviceFaultError(fatal_fault_message(fatal));
  symmetric_reason_ = broken_peer_reason(peer_access_);
}

void NcclProcessFabric::begin_op_group() { ARB_NCCL_CHECK(api_, GroupStart()); }

// Every process is ready before NCCL's collective runs (the first one of an algorithm connects the
// peers): a process whose launch failed says so here (abandon_op_group) instead of leaving the
// others inside ncclGroupEnd. One World collective per op, before the gate opens: not timed.
void NcclProcessFabric::end_op_group() {
  const std::string agreed = first_failure(processes(), "", "ending an op's NCCL group");
  if (!agreed.empty()) {
    abandon_group(api_);
    (void)api_.GroupEnd();
    throw_agreed(agreed);
  }
  const ncclResult_t r = dog_->guard("an NCCL group of ops (NCCL connects its peers at the first collective)",
                                     nccl_setup_bound_s(timeout_s()), [&] { return api_.GroupEnd(); });
  if (r != ncclSuccess) throw_nccl(api_, r, "ncclGroupEnd", __FILE__, __LINE__);
}

void NcclProcessFabric::abandon_op_group() {
  abandon_group(api_);
  (void)api_.GroupEnd();
  // Called while the launch's error is being handled: tell the others, who wait in end_op_group.
  (void)first_failure(processes(), error_token(std::current_exception()), "ending an op's NCCL group");
}

NcclProcessFabric::~NcclProcessFabric() {
  release_gate();  // its flags are windows of comm_
  if (aborted() || comm_ == nullptr) return;
  quiesce() ? api_.CommDestroy(comm_) : api_.CommAbort(comm_);
}

void NcclProcessFabric::abort() {
  if (aborted()) return;
  CudaFabric::abort();
  if (comm_) api_.CommAbort(comm_);
}

std::string NcclProcessFabric::describe() const {
  const WorldLayout& l = processes().layout();
  std::string s = std::to_string(world()) + " processes on " + std::to_string(l.nodes) +
                  (l.nodes == 1 ? " node" : " nodes") + ", one GPU each, " + nccl_api_text(api_);
  for (const auto& [k, v] : env_) s += " " + k + "=" + v;
  return s + "; start gate: MPI barrier, then " + gate_description();
}

std::unique_ptr<RankBuffers> NcclProcessFabric::alloc_symmetric(std::size_t bytes) {
  try {
    return std::make_unique<NcclWindows>(*this, api_, std::vector<ncclComm_t>{comm_}, bytes, *dog_);
  } catch (const NcclGroupError& e) {
    unusable_ = e.what();  // the other processes' registrations went in: replace the communicator
    throw;
  }
}

}  // namespace arbench
