#include "run/run_config.hpp"

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "arbench/core/models.hpp"

namespace arbench {

BackendDefaults backend_defaults(Backend b, int gpus_present) {
  BackendDefaults d{};
  if (b == Backend::host) {
    // CPU threads on a 2-core CI machine: small sweep, few samples (measured: docs/developing.md).
    d = {1 << 10, 1 << 20, 2, 10, 4, {2, 4, 8}};
  } else if (b == Backend::single_gpu) {
    d = {1 << 10, 64 << 20, 5, 50, 20, {2, 4, 8}};
  } else {
    d = {1 << 10, 64 << 20, 5, 50, 20, {}};
    for (int p = 2; p <= gpus_present; p *= 2) d.gpus.push_back(p);
    if (gpus_present >= 1 && (d.gpus.empty() || d.gpus.back() != gpus_present))
      d.gpus.push_back(gpus_present);
  }
  return d;
}

void resolve_defaults(RunConfig& cfg, Backend b, int gpus_present) {
  const BackendDefaults d = backend_defaults(b, gpus_present);
  if (!cfg.min_bytes) cfg.min_bytes = d.min_bytes;
  if (!cfg.max_bytes) cfg.max_bytes = std::max(d.max_bytes, *cfg.min_bytes);
  if (!cfg.warmup) cfg.warmup = d.warmup;
  if (!cfg.samples) cfg.samples = d.samples;
  if (!cfg.pipelined_ops) cfg.pipelined_ops = d.pipelined_ops;
  if (cfg.gpus.empty()) cfg.gpus = d.gpus;
  if (cfg.hidden == 0) {
    if (!cfg.model.empty()) {
      auto h = model_hidden(cfg.model);
      if (!h) throw UsageError("unknown --model '" + cfg.model + "'; `arbench run --help` lists the presets");
      cfg.hidden = *h;
    } else {
      cfg.hidden = 8192;
    }
  }
  if (cfg.tokens.empty())
    for (int t = 1; t <= 256; t *= 2) cfg.tokens.push_back(t);
  if (*cfg.samples < 1) throw UsageError("--samples must be >= 1, got " + std::to_string(*cfg.samples));
  if (*cfg.warmup < 0) throw UsageError("--warmup must be >= 0, got " + std::to_string(*cfg.warmup));
  if (*cfg.pipelined_ops < 0)
    throw UsageError("--pipelined-ops must be >= 0, got " + std::to_string(*cfg.pipelined_ops));
  if (cfg.timeout_s <= 0) throw UsageError("--timeout must be > 0 seconds");
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
}

nlohmann::json config_to_json(const RunConfig& cfg) {
  nlohmann::json dtypes = nlohmann::json::array(), fams = nlohmann::json::array();
  for (DType t : cfg.dtypes) dtypes.push_back(std::string(dtype_name(t)));
  for (Family f : cfg.families) fams.push_back(std::string(family_name(f)));
  return {{"gpus", cfg.gpus},
          {"min_bytes", cfg.min_bytes.value_or(0)},
          {"max_bytes", cfg.max_bytes.value_or(0)},
          {"step_factor", cfg.step_factor},
          {"dtypes", dtypes},
          {"families", fams},
          {"variants", cfg.variants},
          {"tokens", cfg.tokens},
          {"hidden", cfg.hidden},
          {"model", cfg.model},
          {"eps", cfg.tuning.eps},
          {"warmup", cfg.warmup.value_or(0)},
          {"samples", cfg.samples.value_or(0)},
          {"pipelined_ops", cfg.pipelined_ops.value_or(0)},
          {"check", cfg.check},
          {"in_place", cfg.in_place},
          {"seed", cfg.seed},
          {"timeout_s", cfg.timeout_s},
          {"links_file", cfg.links_file},
          {"link_probe", cfg.link_probe},
          {"blocks", cfg.tuning.blocks},
          {"ring_chunk", cfg.tuning.ring_chunk},
          {"ring_channels", cfg.tuning.ring_channels},
          {"ring_order", cfg.tuning.ring_order}};
}

}  // namespace arbench
