// Registry of variants: names, families, and per-backend factories.
#include <algorithm>

#include "arbench/core/errors.hpp"
#include "arbench/variant.hpp"

namespace arbench {

namespace {
// `nccl[ring/ll]` → `nccl`: configurations share their base variant's entry.
std::string base_name(const std::string& name) {
  auto b = name.find('[');
  return b == std::string::npos ? name : name.substr(0, b);
}
}  // namespace

void Registry::add(VariantEntry e) {
  // The host and GPU registration files each add their half of a variant; merge them.
  for (auto& have : entries_) {
    if (have.name != e.name) continue;
    if (!have.gpu) { have.gpu = std::move(e.gpu); have.no_gpu_reason = e.no_gpu_reason; }
    if (!have.host) { have.host = std::move(e.host); have.no_host_reason = e.no_host_reason; }
    if (have.summary.empty()) have.summary = e.summary;
    have.lossy = have.lossy || e.lossy;
    if (!have.traffic) have.traffic = e.traffic;
    if (have.configs.empty()) have.configs = e.configs;
    if (!have.accepts_config) have.accepts_config = e.accepts_config;
    if (!have.config_summary) have.config_summary = e.config_summary;
    if (have.peer.empty()) have.peer = e.peer;
    return;
  }
  entries_.push_back(std::move(e));
}

const VariantEntry* Registry::find(const std::string& name) const {
  const std::string base = base_name(name);
  for (const auto& e : entries_)
    if (e.name == base) {
      if (base != name) {
        const std::string cfg = name.substr(base.size() + 1, name.size() - base.size() - 2);
        const bool listed = std::find(e.configs.begin(), e.configs.end(), cfg) != e.configs.end();
        // A listed configuration is found even without a factory (a peer not built here: its
        // reason is unavailable_reason's); an unlisted one needs the factory that accepts it.
        if (name.back() != ']' || (!listed && !(e.make_configured && e.accepts_config && e.accepts_config(cfg))))
          return nullptr;
      }
      return &e;
    }
  return nullptr;
}

std::string Registry::unavailable_reason(const std::string& name, Backend backend) const {
  const VariantEntry* e = find(name);
  if (!e) return "unknown variant '" + name + "'";
  // A peer not built into this arbench: why, on every backend (the configure step's reason says how
  // to build it).
  if (!e->peer.empty() && !e->gpu) return e->no_gpu_reason.empty() ? "not built into this arbench" : e->no_gpu_reason;
  if (backend == Backend::host) {
    if (base_name(name) != name) return "configurations run on GPU fabrics only";
    if (!e->host) return e->no_host_reason.empty() ? "no host twin" : e->no_host_reason;
  } else if (!e->gpu && !(e->make_configured && base_name(name) != name)) {
    return e->no_gpu_reason.empty() ? "no GPU implementation" : e->no_gpu_reason;
  }
  return {};
}

std::unique_ptr<Variant> Registry::make(const std::string& name, Backend backend) const {
  const VariantEntry* e = find(name);
  if (!e) throw UsageError("unknown variant '" + name + "'; `arbench list` shows the variants");
  if (auto why = unavailable_reason(name, backend); !why.empty())
    throw UsageError("variant '" + name + "' cannot run on the " + std::string(backend_name(backend)) +
                     " backend: " + why);
  if (base_name(name) != name) {
    auto cfg = name.substr(name.find('[') + 1);
    cfg.pop_back();  // drop ']'
    return e->make_configured(cfg);
  }
  return backend == Backend::host ? e->host() : e->gpu();
}

std::vector<VariantInfo> Registry::catalogue(Backend backend) const {
  std::vector<VariantInfo> out;
  for (const auto& e : entries_) {
    out.push_back({e.name, e.family, e.summary, false, unavailable_reason(e.name, backend)});
    for (const auto& cfg : e.configs) {
      const std::string name = e.name + "[" + cfg + "]";
      const std::string summary = e.config_summary ? e.config_summary(cfg) : std::string();
      // A peer not built: its configurations point at its own line, which gives the reason once.
      const bool unbuilt_peer = !e.peer.empty() && !e.gpu;
      out.push_back({name, e.family,
                     summary.empty() ? "`" + e.name + "` with algorithm/protocol " + cfg + " forced, on a communicator of its own"
                                     : summary,
                     true, unbuilt_peer ? "not built (as `" + e.name + "`)" : unavailable_reason(name, backend)});
    }
  }
  return out;
}

}  // namespace arbench
