#include "sweep/run_config.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/ring/ring_policy.hpp"
#include "arbench/algo/ring/ring_order.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/core/models.hpp"
#include "arbench/tuner/tuner_table_text.hpp"
#include "islands/island_spec.hpp"
#include "results/provenance.hpp"

namespace arbench {

namespace {

// A list option naming a value twice would run (and record) the same cases twice, which
// compare and tune then reject: refuse it up front, naming the option and the value.
template <class T, class Text>
void reject_duplicate(const char* option, const std::vector<T>& values, Text text) {
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (values[i] == values[j])
        throw UsageError(std::string(option) + ": " + text(values[i]) +
                         " is listed twice; list each value once");
}

void reject_duplicates(const RunConfig& cfg) {
  const auto num = [](int v) { return std::to_string(v); };
  reject_duplicate("--gpus", cfg.gpus, num);
  reject_duplicate("--tokens", cfg.tokens, num);
  reject_duplicate("--dtype", cfg.dtypes, [](DType t) { return std::string(dtype_name(t)); });
  reject_duplicate("--family", cfg.families, [](Family f) { return std::string(family_name(f)); });
  reject_duplicate("--variants", cfg.variants, [](const std::string& v) { return "'" + v + "'"; });
  reject_duplicate("--nccl-channels", cfg.nccl_channels, num);
}

// --tuner-table: the file must be a tuner table the plugin will accept (the same parser).
void resolve_tuner_table(RunConfig& cfg) {
  if (cfg.tuner_table.empty()) return;
  const std::string what = "--tuner-table " + cfg.tuner_table;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(cfg.tuner_table, ec))
    throw UsageError(what + ": not a file; give the table `arbench settings` wrote (arbench-nccl-tuner.table)");
  std::ifstream in(cfg.tuner_table, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw UsageError(what + ": cannot be read");
  tuner::Table t;
  if (const std::string why = tuner::parse_table(text.str(), t); !why.empty())
    throw UsageError(what + ": not a tuner table: " + why + " (write one with `arbench settings RESULT.json`)");
  cfg.tuning.nccl_tuner_table = std::filesystem::absolute(cfg.tuner_table, ec).string();
}

}  // namespace

BackendDefaults backend_defaults(Backend b, int gpus_present) {
  BackendDefaults d{};
  if (b == Backend::host) {
    // CPU threads on a 2-core CI machine: small sweep, few samples (measured: docs/developing.md).
    // Adaptive: 8 spinning ranks on 2 cores are noisy; 200 samples or 2 s per case at most.
    d = {1 << 10, 1 << 20, 2, 10, 4, {2, 4, 8}, 10, 200, 5.0, 2.0};
  } else if (b == Backend::single_gpu) {
    d = {1 << 10, 64 << 20, 5, 50, 20, {2, 4, 8}, 10, 1000, 1.0, 5.0};
  } else {
    d = {1 << 10, 64 << 20, 5, 50, 20, {}, 10, 1000, 1.0, 5.0};
    for (int p = 2; p <= gpus_present; p *= 2) d.gpus.push_back(p);
    if (gpus_present >= 1 && (d.gpus.empty() || d.gpus.back() != gpus_present))
      d.gpus.push_back(gpus_present);
  }
  return d;
}

std::string host_threads_problem(int threads, Backend b, const std::vector<Family>& families) {
  if (threads == 0) return {};
  const std::string what = "--host-threads " + std::to_string(threads);
  if (b != Backend::host)
    return what + ": threads per block of the CPU twins, which only the host backend runs (this run uses the " +
           std::string(backend_name(b)) + " backend); drop it or use --backend host";
  const int max = std::min(algo::SymmLaunchPolicy::kThreads, algo::RingPolicy::kThreads);
  if (threads < 0 || threads > max)
    return what + ": use 1 to " + std::to_string(max) + " (the kernels' threads per block), or 0 for one thread per rank";
  const bool fused = std::find(families.begin(), families.end(), Family::allreduce_rmsnorm) != families.end();
  if (fused && !algo::FusedLaunchPolicy::threads_ok(threads)) {
    std::string ok;
    for (int t = 1; t <= algo::FusedLaunchPolicy::kThreads; ++t)
      if (algo::FusedLaunchPolicy::threads_ok(t)) ok += (ok.empty() ? "" : ", ") + std::to_string(t);
    return what + ": the allreduce_rmsnorm kernels need a thread count that divides their " +
           std::to_string(algo::kNormLanes) + " RMSNorm lanes: " + ok + " (or --family allreduce)";
  }
  return {};
}

std::string join_ints(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

bool adaptive_sampling(const RunConfig& cfg) {
  return cfg.max_noise_pct || cfg.min_samples || cfg.max_samples || cfg.min_time_s || cfg.max_time_s;
}

namespace {

// A number as the user typed it: 0.5, 3, 1e-05 (std::to_string would say 3.000000).
std::string typed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Adaptive sampling's options: defaults, and every value checked before any work starts.
void resolve_sampling(RunConfig& cfg, const BackendDefaults& d) {
  if (!adaptive_sampling(cfg)) return;
  if (cfg.samples)
    throw UsageError("--samples " + std::to_string(*cfg.samples) +
                     " takes exactly that many samples, while --max-noise/--min-samples/--max-samples/"
                     "--min-time/--max-time sample until the median is known well enough: use one or the other");
  if (!cfg.min_samples) cfg.min_samples = d.min_samples;
  if (!cfg.max_samples) cfg.max_samples = std::max(d.max_samples, *cfg.min_samples);
  if (!cfg.max_noise_pct) cfg.max_noise_pct = d.max_noise_pct;
  if (!cfg.min_time_s) cfg.min_time_s = 0.0;
  if (!cfg.max_time_s) cfg.max_time_s = std::max(d.max_time_s, *cfg.min_time_s);
  if (*cfg.min_samples < 1) throw UsageError("--min-samples must be >= 1, got " + std::to_string(*cfg.min_samples));
  if (*cfg.max_samples < *cfg.min_samples)
    throw UsageError("--max-samples " + std::to_string(*cfg.max_samples) + " is below --min-samples " +
                     std::to_string(*cfg.min_samples));
  if (!(*cfg.max_noise_pct > 0) || *cfg.max_noise_pct > 1000)
    throw UsageError("--max-noise " + typed(*cfg.max_noise_pct) + ": a percentage in (0, 1000] is needed, e.g. --max-noise 1");
  if (!(*cfg.min_time_s >= 0)) throw UsageError("--min-time " + typed(*cfg.min_time_s) + ": must be >= 0 seconds");
  if (!(*cfg.max_time_s > 0)) throw UsageError("--max-time " + typed(*cfg.max_time_s) + ": must be > 0 seconds");
  if (*cfg.min_time_s > *cfg.max_time_s)
    throw UsageError("--min-time " + typed(*cfg.min_time_s) + " s is longer than --max-time " +
                     typed(*cfg.max_time_s) + " s");
}

}  // namespace

void resolve_defaults(RunConfig& cfg, Backend b, int gpus_present) {
  const BackendDefaults d = backend_defaults(b, gpus_present);
  resolve_sampling(cfg, d);
  if (!cfg.min_bytes) cfg.min_bytes = d.min_bytes;
  if (!cfg.max_bytes) cfg.max_bytes = std::max(d.max_bytes, *cfg.min_bytes);
  if (!cfg.warmup) cfg.warmup = d.warmup;
  if (!cfg.samples) cfg.samples = adaptive_sampling(cfg) ? *cfg.min_samples : d.samples;
  if (!cfg.pipelined_ops) cfg.pipelined_ops = d.pipelined_ops;
  if (cfg.gpus.empty()) cfg.gpus = d.gpus;
  if (!cfg.model.empty()) {
    auto h = model_hidden(cfg.model);
    if (!h) throw UsageError("unknown --model '" + cfg.model + "'; `arbench run --help` lists the presets");
    if (!cfg.hidden) cfg.hidden = *h;
  }
  if (!cfg.hidden) cfg.hidden = 8192;
  if (*cfg.hidden < 1)
    throw UsageError("--hidden " + std::to_string(*cfg.hidden) + ": the hidden size must be >= 1 (e.g. 8192)");
  if (cfg.tokens.empty())
    for (int t = 1; t <= 256; t *= 2) cfg.tokens.push_back(t);
  if (*cfg.samples < 1) throw UsageError("--samples must be >= 1, got " + std::to_string(*cfg.samples));
  if (*cfg.warmup < 0) throw UsageError("--warmup must be >= 0, got " + std::to_string(*cfg.warmup));
  if (cfg.skews_us.empty()) cfg.skews_us = {0};
  for (double s : cfg.skews_us)
    if (!std::isfinite(s) || s < 0 || s * 1e-6 >= cfg.timeout_s) {
      char why[256];
      std::snprintf(why, sizeof why,
                    "--skew %g: an arrival skew must be a number of microseconds >= 0 and below --timeout (%g s), "
                    "or the ranks that wait for the last one give up; e.g. --skew 0,2,5",
                    s, cfg.timeout_s);
      throw UsageError(why);
    }
  if (*cfg.pipelined_ops < 0)
    throw UsageError("--pipelined-ops must be >= 0, got " + std::to_string(*cfg.pipelined_ops));
  if (cfg.timeout_s <= 0) throw UsageError("--timeout must be > 0 seconds");
  if (auto why = host_threads_problem(cfg.tuning.host_threads, b, cfg.families); !why.empty()) throw UsageError(why);
  reject_duplicates(cfg);
  for (int n : cfg.nccl_channels)
    if (n < 1 || n > tuner::kMaxChannels)
      throw UsageError("--nccl-channels " + std::to_string(n) + ": a channel count from 1 to " +
                       std::to_string(tuner::kMaxChannels) + " (NCCL's maximum)");
  resolve_tuner_table(cfg);
  const int max_world = b == Backend::cuda ? gpus_present : kMaxRanks;
  for (int g : cfg.gpus) {
    if (g < 1) throw UsageError("--gpus: " + std::to_string(g) + " is not a GPU count (must be >= 1)");
    if (b == Backend::cuda && g > gpus_present)
      throw UsageError("--gpus " + std::to_string(g) + " asks for more GPUs than the " +
                       std::to_string(gpus_present) + " present; use --gpus up to " +
                       std::to_string(gpus_present) + " or --backend single-gpu for virtual ranks");
    if (g > max_world)
      throw UsageError("--gpus " + std::to_string(g) + ": at most " + std::to_string(max_world) +
                       " ranks are supported by the " + std::string(backend_name(b)) + " backend");
  }
  if (!cfg.tuning.ring_order.empty())
    for (int g : cfg.gpus)
      if (std::string why = algo::ring_order_problem(cfg.tuning.ring_order, g); !why.empty())
        throw UsageError(why);
  resolve_islands(cfg, b);
}

void resolve_islands(RunConfig& cfg, Backend b) {
  cfg.tuning.islands.clear();
  if (!cfg.islands.empty()) {
    const std::vector<int> all = islands::parse_islands(cfg.islands);
    for (int g : cfg.gpus) {
      islands::check_covers(all, g, cfg.islands);
      cfg.tuning.islands[g] = islands::islands_of_world(all, g);
    }
    cfg.islands_source = "--islands";
  } else if (b != Backend::cuda) {
    cfg.tuning.islands = islands::halves(cfg.gpus);
    cfg.islands_source = "two halves (" + std::string(backend_name(b)) + " backend: no PCIe tree to follow)";
  } else {
    cfg.islands_source = "the PCIe tree";  // filled by the run from the GPUs' topology
  }
}

namespace {

nlohmann::json sampling_json(const RunConfig& cfg) {
  if (!adaptive_sampling(cfg)) return {{"mode", "fixed"}, {"samples", cfg.samples.value_or(0)}};
  return {{"mode", "adaptive"},
          {"min_samples", cfg.min_samples.value_or(0)},
          {"max_samples", cfg.max_samples.value_or(0)},
          {"max_noise_pct", cfg.max_noise_pct.value_or(0)},
          {"min_time_s", cfg.min_time_s.value_or(0)},
          {"max_time_s", cfg.max_time_s.value_or(0)},
          {"confidence", 0.95}};
}

}  // namespace

nlohmann::json config_to_json(const RunConfig& cfg) {
  nlohmann::json dtypes = nlohmann::json::array(), fams = nlohmann::json::array();
  for (DType t : cfg.dtypes) dtypes.push_back(std::string(dtype_name(t)));
  for (Family f : cfg.families) fams.push_back(std::string(family_name(f)));
  nlohmann::json j = {{"gpus", cfg.gpus},
          {"min_bytes", cfg.min_bytes.value_or(0)},
          {"max_bytes", cfg.max_bytes.value_or(0)},
          {"step_factor", cfg.step_factor},
          {"dtypes", dtypes},
          {"families", fams},
          {"variants", cfg.variants},
          {"tokens", cfg.tokens},
          {"hidden", cfg.hidden.value_or(0)},
          {"model", cfg.model},
          {"eps", cfg.tuning.eps},
          {"warmup", cfg.warmup.value_or(0)},
          {"samples", cfg.samples.value_or(0)},
          {"pipelined_ops", cfg.pipelined_ops.value_or(0)},
          {"check", cfg.check},
          {"in_place", cfg.in_place},
          {"skews_us", cfg.skews_us},
          {"phases", cfg.phases},
          {"seed", cfg.seed},
          {"timeout_s", cfg.timeout_s},
          {"links_file", cfg.links_file},
          {"link_probe", cfg.link_probe},
          {"allow_ll128_pcie", cfg.allow_ll128_pcie},
          {"nccl_channels", cfg.nccl_channels},
          {"tuner_table", cfg.tuner_table},
          {"blocks", cfg.tuning.blocks},
          {"host_threads", cfg.tuning.host_threads},
          {"ring_chunk", cfg.tuning.ring_chunk},
          {"ring_channels", cfg.tuning.ring_channels},
          {"ring_order", cfg.tuning.ring_order},
          {"islands", cfg.islands},
          {"cache", cfg.cold_cache ? "cold" : "hot"},
          {"symm_mem", cfg.symm_mem},
          {"sampling", sampling_json(cfg)}};
  if (!cfg.nccl_libs.empty()) j["nccl_libs"] = cfg.nccl_libs;  // --nccl-lib as typed; absent without it
  // Absent at its default, so that sweep_key does not change for the runs made before it existed.
  if (cfg.tuning.peer_workspace_bytes != kDefaultPeerWorkspaceBytes)
    j["peer_workspace_bytes"] = cfg.tuning.peer_workspace_bytes;
  if (!cfg.beside.empty()) j["beside"] = cfg.beside;            // --beside; absent without it
  return j;
}

std::string sweep_key(const RunConfig& cfg) {
  nlohmann::json j = config_to_json(cfg);
  // Bounds and link data do not change what a case measures.
  // --phases records extra ops after the timed samples, which it leaves as they were.
  // --beside, likewise: its ops come after the timed samples.
  for (const char* k : {"timeout_s", "links_file", "link_probe", "phases", "beside"}) j.erase(k);
  // Options added after the key existed join it only when they leave their default, so an
  // upgrade does not start every team's baseline anew.
  if (!cfg.cold_cache) j.erase("cache");
  if (cfg.symm_mem == "auto") j.erase("symm_mem");
  if (cfg.nccl_channels.empty()) j.erase("nccl_channels");
  if (cfg.tuner_table.empty()) j.erase("tuner_table");
  if (!adaptive_sampling(cfg)) j.erase("sampling");
  if (cfg.islands.empty()) j.erase("islands");
  return fnv1a_hex(j.dump());
}

TimeoutCap cap_timeout_for_watchdog(double asked_s, const std::vector<int>& watchdog_gpus) {
  if (watchdog_gpus.empty() || asked_s <= kWatchdogTimeoutCap) return {asked_s, {}};
  char buf[96];
  std::snprintf(buf, sizeof buf, "--timeout %g s capped at %g s", asked_s, kWatchdogTimeoutCap);
  return {kWatchdogTimeoutCap, std::string(buf) + ": GPU " + join_ints(watchdog_gpus) +
                                   " drives a display, and its kernel watchdog would kill a kernel waiting "
                                   "longer for a peer (a lost CUDA context, not a failed case)"};
}

int parse_absent_rank(const char* text) {
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 0 || v >= kMaxRanks)
    throw UsageError(std::string("ARBENCH_TEST_ABSENT_RANK=") + text + ": a rank 0.." + std::to_string(kMaxRanks - 1) +
                     " expected (a test switch: that rank never launches its ops)");
  return static_cast<int>(v);
}

BrokenPair parse_broken_pair(const char* text) {
  if (text == nullptr || *text == '\0') return {};
  int a = -1, b = -1;
  char tail = 0;
  if (std::sscanf(text, "%d,%d%c", &a, &b, &tail) != 2 || a < 0 || b < 0 || a >= kMaxRanks || b >= kMaxRanks || a == b)
    throw UsageError(std::string("ARBENCH_TEST_BROKEN_P2P=") + text + ": two different ranks 0.." +
                     std::to_string(kMaxRanks - 1) + " expected, as a,b (a test switch: that pair's peer-to-peer "
                     "data goes elsewhere)");
  return {a, b};
}

}  // namespace arbench
