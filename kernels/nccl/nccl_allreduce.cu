// `nccl` and its named configurations `nccl[<algo>/<proto>]`: ncclAllReduce on plain device
// buffers. Plain `nccl` leaves the choice to NCCL's tuner (NCCL_ALGO / NCCL_PROTO from the
// environment are respected and recorded); a configuration forces NCCL_ALGO and NCCL_PROTO
// on a communicator of its own, created with those variables set.
//
// Two configurations use arbench's NCCL tuner plugin (kernels/nccl/tuner/), which the run loads
// for every NCCL communicator of the process when the sweep has one of them (NCCL loads one tuner
// per process, once; bench/run/nccl_tuner_env): `nccl[<algo>/<proto>/ch:<N>]` also runs every
// all-reduce on N channels (the plugin's channel mode, ARBENCH_NCCL_TUNER_CHANNELS=N, which bypasses
// NCCL's per-size reduction; NCCL still caps it at the communicator's channel count), and
// `nccl[tuned]` applies the table of --tuner-table (ARBENCH_NCCL_TUNER_TABLE): docs/engine-settings.md.
// Neither sets NCCL_MIN_CTAS: NCCL reads it once per process (an NCCL_PARAM, cached at the first
// communicator: NCCL 2.28.9 src/include/param.h), so a per-communicator value would leak into every
// later case; NCCL_ALGO / NCCL_PROTO and the plugin's variables are read at each creation.
//
// `nccl-symm`: the same call with input and output in NCCL symmetric windows (ncclMemAlloc +
// ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC), done by the cuda fabric's
// Fabric::alloc(bytes, Placement::symmetric)): NCCL's own load/store symmetric kernels, which
// NCCL 2.28 picks whenever both buffers are windows (they load and store peer memory directly
// instead of the ring/tree paths). It is labelled so in `arbench list`, docs/variants.md and the
// case's settings ("kernels"), and its data path is NCCL's. Needs symmetric memory support (the
// fabric probes ncclDevCommCreate, its LSA team and every pair's P2P; its reason is the skip).
//
// Phase timeline: NCCL's kernels are opaque, so a one-thread marker kernel on the rank's stream
// records entry just before the collective and exit just after it; the whole collective counts
// as reduce+store in the breakdown.
#include "kernels/nccl/nccl_allreduce.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/core/peer_access.hpp"
#include "kernels/fabric/cuda/clock_kernels.hpp"
#include "arbench/core/nccl_library_name.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_features.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"
#include "kernels/variant_entry.hpp"

namespace arbench {
namespace {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::bf16: return ncclBfloat16;
    case DType::fp16: return ncclFloat16;
    default: return ncclFloat32;
  }
}

const char* const kForcedConfigs[] = {"ring/simple", "ring/ll", "ring/ll128", "tree/simple", "tree/ll"};
constexpr int kMaxNcclChannels = 64;  // NCCL's MAXCHANNELS (2.28.9)

// "ring/ll/ch:4" → "ring/ll" and 4; channels 0 without "/ch:"; -1 for a bad count.
std::string split_channels(const std::string& config, int& channels) {
  channels = 0;
  const auto ch = config.find("/ch:");
  if (ch == std::string::npos) return config;
  const std::string n = config.substr(ch + 4);
  channels = n.empty() || n.size() > 2 || n.find_first_not_of("0123456789") != std::string::npos || n[0] == '0'
                 ? -1
                 : std::stoi(n);
  if (channels > kMaxNcclChannels) channels = -1;
  return config.substr(0, ch);
}

bool is_forced(const std::string& config) {
  for (const char* c : kForcedConfigs)
    if (config == c) return true;
  return false;
}

// "ring/ll128" → {"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL128"}; "ring/ll/ch:4" adds the plugin's
// channel mode; "tuned": none here (fabric_env adds the table).
std::map<std::string, std::string> config_env(const std::string& config) {
  if (config.empty() || config == "tuned") return {};
  int channels = 0;
  const std::string forced = split_channels(config, channels);
  const auto slash = forced.find('/');
  const std::string algo = forced.substr(0, slash), proto = forced.substr(slash + 1);
  const std::map<std::string, std::string> algos = {{"ring", "Ring"}, {"tree", "Tree"}};
  const std::map<std::string, std::string> protos = {{"simple", "Simple"}, {"ll", "LL"}, {"ll128", "LL128"}};
  if (slash == std::string::npos || !algos.count(algo) || !protos.count(proto) || channels < 0)
    throw UsageError("unknown nccl configuration '" + config + "'; `arbench list` shows them");
  std::map<std::string, std::string> env = {{"NCCL_ALGO", algos.at(algo)}, {"NCCL_PROTO", protos.at(proto)}};
  if (channels > 0) env["ARBENCH_NCCL_TUNER_CHANNELS"] = std::to_string(channels);
  return env;
}

bool p2p_disabled() {
  const char* v = std::getenv("NCCL_P2P_DISABLE");
  return v != nullptr && std::string(v) == "1";
}

class NcclAllReduce final : public Variant {
 public:
  // `library`: a library measured beside the default one (nccl_libraries.hpp); nullptr: the default.
  NcclAllReduce(std::string config, Placement placement, const NcclApi* library = nullptr)
      : env_(config_env(config)), tuned_(config == "tuned"), placement_(placement), library_(library) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (c.family != Family::allreduce) return Support::no("nccl is an allreduce");
    // A channel configuration of a library beside the default one that cannot read arbench's
    // tuner plugin (before NCCL 2.28): it would run on NCCL's own channel count, unforced.
    if (library_ != nullptr && env_.count("ARBENCH_NCCL_TUNER_CHANNELS") > 0)
      if (std::string why = nccl_channels_missing(library_->version); !why.empty()) return Support::no(why);
    if (f.backend() != Backend::cuda || f.nccl_comm(0) == nullptr)
      return Support::no("NCCL needs one real GPU per rank (it forbids two ranks on one GPU); use --backend cuda");
    if (placement_ == Placement::symmetric)
      if (std::string why = f.symmetric_unsupported_reason(); !why.empty()) return Support::no(why);
    // A pair that reports P2P but whose writes never arrive: NCCL's P2P transport would use it and
    // hang, unless NCCL is told to go through host memory.
    if (const PeerAccess* peers = f.peer_access(); peers != nullptr && !p2p_disabled())
      if (std::string why = broken_peer_reason(*peers, c.world); !why.empty())
        return Support::no(why + " (NCCL_P2P_DISABLE=1 runs NCCL through host memory instead)");
    return Support::yes();
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    case_env_ = fabric_env(c, t);
    if (placement_ == Placement::symmetric && !(b.in->symmetric() && b.out->symmetric()))
      throw CaseError("nccl-symm: the harness gave it non-symmetric buffers; it needs NCCL windows");
    api_ = library_ != nullptr ? library_ : &NcclApi::get();  // the fabric's library (Harness::provider_for)
    count_ = c.elements();
    type_ = nccl_type(c.dtype);
    world_ = f.world();
    comm_.assign(std::size_t(world_), nullptr);
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;  // its own process launches it
      comm_[std::size_t(r)] = static_cast<ncclComm_t>(f.nccl_comm(r));
    }
    in_ = b.in;  // read at each launch: the harness may alternate input sets (docs/method.md)
    out_ = b.out;
  }

  // In launch() the marker is enqueued at once, the collective only when the op's NCCL group
  // ends (variant.hpp): the entry mark precedes the collective on the stream.
  void launch(int rank, Stream stream) override {
    const auto r = std::size_t(rank);
    if (phases_ != nullptr) launch_phase_marker(record(rank), 0, static_cast<cudaStream_t>(stream));
    ARB_NCCL_CHECK(*api_, AllReduce(in_->local(rank), out_->local(rank), count_, type_, ncclSum, comm_[r],
                                    static_cast<cudaStream_t>(stream)));
  }

  void launch_after(int rank, Stream stream) override {
    if (phases_ != nullptr) launch_phase_marker(record(rank), 1, static_cast<cudaStream_t>(stream));
  }

  std::vector<PhaseMark> phase_marks() const override {
    return {{"entry", PhaseBucket::entry}, {"exit", PhaseBucket::reduce}};
  }
  void record_phases(RankBuffers* rec) override { phases_ = rec; }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    std::vector<std::pair<std::string, std::string>> s;
    if (library_ != nullptr)  // which build ran it: the evidence `compare --between` and `settings` cite
      s.push_back({"nccl_library", library_->label + ": NCCL " + nccl_version_text(library_->version) +
                                       " " + library_->path});
    s.push_back({"buffers", placement_ == Placement::symmetric
                                ? "ncclMemAlloc + ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC)"
                                : "cudaMalloc"});
    if (placement_ == Placement::symmetric)
      s.push_back({"kernels", "NCCL's own load/store symmetric kernels (NCCL 2.28 picks them when both buffers "
                              "are windows)"});
    for (const char* k : {"NCCL_ALGO", "NCCL_PROTO"}) {
      auto it = env_.find(k);
      const char* process = std::getenv(k);
      s.push_back({k, it != env_.end() ? it->second : process ? process : "(NCCL's choice)"});
    }
    // The tuner plugin, when the run loads it (every NCCL case of such a run), and what it was told.
    for (const char* k : {"NCCL_TUNER_PLUGIN", "ARBENCH_NCCL_TUNER_TABLE", "ARBENCH_NCCL_TUNER_CHANNELS", "NCCL_MIN_CTAS"}) {
      auto it = case_env_.find(k);
      const char* process = std::getenv(k);
      if (it != case_env_.end())
        s.push_back({k, it->second});
      else if (process != nullptr)
        s.push_back({k, process});
    }
    return s;
  }
  // NCCL runs a CTA per channel. A `ch:N` configuration fixes the channels through arbench's tuner
  // plugin (NCCL may still cap them at the communicator's count: the case's nccl_channels_clamped
  // label says so); otherwise NCCL picks them per call, between the communicator's minCTAs and
  // maxCTAs, and arbench does not read the count it picked (not verified against NCCL's source:
  // its profiler plugin interface is where a per-call count would come from).
  SmUse sms(const Case& /*c*/, const Fabric& /*f*/) const override {
    const auto it = env_.find("ARBENCH_NCCL_TUNER_CHANNELS");
    if (it != env_.end()) return {std::stoi(it->second), "NCCL channels forced by ch:N (arbench's tuner plugin)"};
    return {-1, "unknown: NCCL picks its channels (a CTA each) per call; arbench does not read the count it picked"};
  }
  Placement buffer_placement() const override { return placement_; }
  std::map<std::string, std::string> fabric_env() const override { return env_; }
  DataMover data_mover() const override { return DataMover::nccl; }
  std::map<std::string, std::string> fabric_env(const Case& c, const Tuning& t) const override {
    std::map<std::string, std::string> env = env_;
    (void)c;
    if (tuned_) env["ARBENCH_NCCL_TUNER_TABLE"] = t.nccl_tuner_table;
    return env;
  }

 private:
  std::map<std::string, std::string> env_;
  std::map<std::string, std::string> case_env_;  // the prepared case's, for settings()
  bool tuned_ = false;
  Placement placement_;
  const NcclApi* library_ = nullptr;
  const NcclApi* api_ = nullptr;
  std::size_t count_ = 0;
  ncclDataType_t type_ = ncclBfloat16;
  int world_ = 0;
  // Per rank (any world size: NCCL has no 8-rank limit; with one process per GPU only this
  // process's rank is filled).
  std::vector<ncclComm_t> comm_;
  RankBuffers* in_ = nullptr;
  RankBuffers* out_ = nullptr;
  RankBuffers* phases_ = nullptr;
  std::uint64_t* record(int rank) const { return static_cast<std::uint64_t*>(phases_->local(rank)); }
};

// ncclAllReduce of `library` (nullptr: the default), unconfigured, with both buffers where
// `placement` puts them.
VariantEntry nccl_entry_of(const VariantText& t, Placement placement, const NcclApi* library) {
  VariantEntry e = gpu_entry(t, [placement, library] { return std::make_unique<NcclAllReduce>("", placement, library); });
  e.no_host_reason = "NCCL needs GPUs; the host backend runs CPU twins only";
  return e;
}

// `nccl` and its configurations, of `library` (nullptr: the default).
VariantEntry nccl_entry_for(const VariantText& t, const NcclApi* library) {
  VariantEntry e = nccl_entry_of(t, Placement::local, library);
  e.configs.assign(std::begin(kForcedConfigs), std::end(kForcedConfigs));
  // nccl[tuned] verifies arbench's tuner table with the default library; a library beside it has
  // the forced configurations only.
  if (library == nullptr) e.configs.push_back("tuned");
  e.make_configured = [library](const std::string& cfg) {
    return std::make_unique<NcclAllReduce>(cfg, Placement::local, library);
  };
  // `nccl[ring/ll/ch:4]`: a listed forced configuration on exactly N channels (--nccl-channels).
  e.accepts_config = [](const std::string& cfg) {
    int channels = 0;
    return is_forced(split_channels(cfg, channels)) && channels > 0;
  };
  e.config_summary = [](const std::string& cfg) -> std::string {
    if (cfg == "tuned")
      return "`nccl` with arbench's NCCL tuner plugin applying --tuner-table (written by `arbench settings`)";
    return {};
  };
  return e;
}

const char* const kNcclSummary =
    "ncclAllReduce with NCCL's own tuner; nccl[<algo>/<proto>[/ch:N]] forces them, nccl[tuned] applies a table";
const char* const kNcclSymmSummary =
    "NCCL's own load/store symmetric kernels: ncclAllReduce with both buffers in NCCL symmetric windows";

}  // namespace

VariantEntry nccl_entry() { return nccl_entry_for({"nccl", Family::allreduce, kNcclSummary, &nccl_traffic}, nullptr); }

VariantEntry nccl_symm_entry() {
  return nccl_entry_of({"nccl-symm", Family::allreduce, kNcclSymmSummary, &nccl_symm_traffic}, Placement::symmetric,
                       nullptr);
}

std::vector<VariantEntry> nccl_library_entries(const NcclApi& library) {
  // From NCCL 2.14 (nccl_features.hpp): `nccl@<label>` and its forced configurations always; its
  // nccl-symm only where the library has symmetric memory (`list` says why not:
  // nccl_library_limits).
  const std::string which = "NCCL " + nccl_version_text(library.version) + " (" + library.path + ")";
  const std::string plain = with_library("nccl", library.label), symm = with_library("nccl-symm", library.label);
  // VariantText holds pointers: the entries copy them into their own strings at once.
  const bool channels = nccl_channels_missing(library.version).empty();  // `/ch:N`: from 2.28
  const std::string plain_summary = "`nccl` of " + which + ": ncclAllReduce with that NCCL's own tuner; " + plain +
                                    (channels ? "[<algo>/<proto>[/ch:N]]" : "[<algo>/<proto>]") + " forces them";
  const std::string symm_summary = "`nccl-symm` of " + which + ": its own symmetric kernels on its windows";
  std::vector<VariantEntry> out;
  out.push_back(nccl_entry_for({plain.c_str(), Family::allreduce, plain_summary.c_str(), &nccl_traffic}, &library));
  if (nccl_symmetric_missing(library.version, nccl_symmetric_entries(library)).empty())
    out.push_back(nccl_entry_of({symm.c_str(), Family::allreduce, symm_summary.c_str(), &nccl_symm_traffic},
                                Placement::symmetric, &library));
  return out;
}

}  // namespace arbench
