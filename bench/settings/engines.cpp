// Engine settings from the NCCL plan and the findings; see engines.hpp. Each engine's rules,
// and the facts they rest on, are in knobs.cpp's sources; docs/engine-settings.md explains them.
#include "settings/engines.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "settings/catalogue/knobs.hpp"

namespace arbench {
namespace engine_detail {

std::string mib_value(std::uint64_t bytes) {  // 524288 -> "0.5", rounded down to 4 decimals
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", std::floor(double(bytes) / 1048576.0 * 1e4) / 1e4);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// The NCCL variables of the measurement that fix the communicators' channel counts (NCCL reads them
// once per process): the engine gets them too, so a rule's channel count means what it meant.
const char* const kCarriedNcclEnv[] = {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS"};

std::string carried_env(const Measured& m) {
  std::string env;
  for (const char* k : kCarriedNcclEnv)
    if (const auto it = m.facts.nccl_env.find(k); it != m.facts.nccl_env.end())
      env += (env.empty() ? "" : " ") + std::string(k) + "=" + it->second;
  return env;
}

// The NCCL variables that load arbench's plugin with the table (empty when it has no rule here).
std::string nccl_env(const NcclPlan& p, const SettingsPaths& paths) {
  if (!p.missing.empty() || p.rules().empty() || !p.version_gate.empty()) return {};
  std::string env = "NCCL_TUNER_PLUGIN=" + paths.plugin + " ARBENCH_NCCL_TUNER_TABLE=" + paths.table;
  if (!paths.carried_env.empty()) env += " " + paths.carried_env;
  return env;
}

// A shell command as lines: each environment assignment on its own line, then the program and
// each flag, joined by line continuations (so every line stays short and the whole pastes as one).
std::vector<std::string> shell_lines(const std::string& env, const std::string& program,
                                     const std::vector<std::string>& flags) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < env.size();) {
    std::size_t end = env.find(' ', i);
    if (end == std::string::npos) end = env.size();
    if (end > i) parts.push_back(env.substr(i, end - i));
    i = end + 1;
  }
  const std::size_t n_env = parts.size();
  parts.push_back(program);
  for (const std::string& f : flags) parts.push_back("  " + f);
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < parts.size(); ++i)
    lines.push_back((i >= n_env && n_env > 0 ? "  " : "") + parts[i] + (i + 1 < parts.size() ? " \\" : ""));
  return lines;
}

EngineSetting missing(const std::string& knob_id, const std::string& why, const std::string& run_line) {
  EngineSetting s;
  s.knob = knob_id;
  s.status = S::missing;
  s.why = why;
  s.run_line = run_line;
  return s;
}

std::string lead_text(const Advantage& a) { return size_text(a.lead, a.axis); }

EngineSetting knob_setting(const EngineContext& c, std::string_view id, SettingStatus status, bool* lacks) {
  const KnobFor kf = knob_for(id, c.stack, c.measured_nccl);
  EngineSetting s;
  s.knob = std::string(id);
  s.status = status;
  s.entry = kf.entry;
  s.versions = kf.versions;
  if (lacks) *lacks = kf.lacks;
  if (kf.lacks) {
    s.status = S::gated;
    s.why = "the " + std::string(kf.entry->engine) + " release given has no " + std::string(kf.entry->name) +
            "; nothing to set";
  }
  return s;
}

bool settle(EngineSetting& s) {
  const Knob& k = s.entry ? *s.entry : knob(s.knob);
  if (s.status == S::set && !k.verified) s.status = S::try_it;
  return s.status == S::set;
}

const Advantage& peer_or_nearest(const Advantage& peer, const Advantage& nearest) {
  return peer.measured ? peer : nearest;
}

std::string peer_note(const Advantage& peer, const std::string& peer_variant, const std::string& nearest) {
  if (peer.measured) return "measured `" + peer_variant + "`, the kernel itself";
  return "measured arbench's nearest variant (" + nearest + "), not the kernel itself: add `" + peer_variant +
         "` to the run";
}

void disable_custom_all_reduce(EngineSetting& ar, std::vector<std::string>& flags) {
  ar.status = S::set;
  ar.paste = "--disable-custom-all-reduce";
  ar.value = "off";
  ar.why = "NCCL is as fast or faster from the smallest size measured";
  if (settle(ar)) flags.push_back(ar.paste);
}

std::string symm_kernels_gate(const EngineContext& c, std::string* versions) {
  const KnobFor kf = knob_for("nccl.symm_kernels", c.stack, c.measured_nccl);
  if (versions) *versions = kf.versions;
  if (kf.lacks)  // older than the first release with symmetric kernels
    return "the NCCL given has no symmetric kernels (they first appear in " + std::string(kf.first) +
           "): a symmetric window gets NCCL's ordinary kernels, so the measured gain cannot appear and the knob does "
           "nothing";
  if (!kf.entry->needs_nvlink || c.p.nvlink) return {};
  return "NCCL " + std::string(kf.entry->first) +
         " and later run their symmetric kernels only where every GPU pair is directly NVLink-connected; on "
         "this PCIe box a symmetric window gets NCCL's ordinary kernels, so the measured gain cannot appear and the "
         "knob does nothing";
}

int GpuFacts::cc_major() const {
  const auto dot = cc.find('.');
  if (cc.empty() || dot == 0) return -1;
  int v = 0;
  for (char c : cc.substr(0, dot)) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace engine_detail

namespace {

using namespace engine_detail;

// "up to 64 KiB: nccl[ring/ll/ch:4]", "above 64 KiB up to 2 MiB: NCCL's own choice".
std::string range_text(const NcclRange& r) {
  return (r.min_bytes == 0 ? std::string("up to ") : "above " + size_text(r.min_bytes - 1, "bytes") + " up to ") +
         size_text(r.max_bytes, "bytes") + ": " + (r.keeps_nccl() ? std::string("NCCL's own choice") : r.variant);
}

// --- NCCL -----------------------------------------------------------------------------------

EngineSection nccl_section(const EngineContext& c) {
  const NcclPlan& p = c.p;
  const SettingsPaths& paths = c.paths;
  EngineSection sec;
  sec.engine = "NCCL";
  if (!p.missing.empty()) {
    sec.settings.push_back(missing("nccl.tuner_plugin", p.missing, p.run_line));
    sec.settings.back().versions = knob_for("nccl.tuner_plugin", c.stack, c.measured_nccl).versions;
    return sec;
  }
  bool old_nccl = false;  // an NCCL that does not look up the interfaces arbench's plugin exports
  EngineSetting plugin = knob_setting(c, "nccl.tuner_plugin", S::keep, &old_nccl);
  const auto rules = p.rules();
  std::string ranges;
  for (const NcclRange& r : p.ranges) {
    ranges += (ranges.empty() ? "" : "; ") + range_text(r);
    if (!r.evidence.empty()) plugin.evidence.push_back(r.evidence.back());
  }
  if (rules.empty()) {
    plugin.status = S::keep;
    plugin.value = "NCCL's own choice at every measured size";
    plugin.why = "no forced configuration beats it anywhere (" + ranges + ")";
  } else {
    plugin.status = p.version_gate.empty() ? S::set : S::try_it;
    plugin.paste = nccl_env(p, paths);
    if (!p.version_gate.empty())
      plugin.paste = "NCCL_TUNER_PLUGIN=" + paths.plugin + " ARBENCH_NCCL_TUNER_TABLE=" + paths.table +
                     (paths.carried_env.empty() ? "" : " " + paths.carried_env);
    plugin.value = std::to_string(rules.size()) + " of " + std::to_string(p.ranges.size()) + " size ranges: " + ranges;
    plugin.why = "where a forced configuration beats NCCL's own choice, the plugin applies it; every other size, "
                 "collective and GPU count stays NCCL's";
    if (p.max_channels(false) > 0)
      plugin.why += "; a rule's channel count is capped at the communicator's, as it was when measured" +
                    (paths.carried_env.empty() ? std::string()
                                               : " (with the measurement's " + paths.carried_env + ")");
    if (!p.version_gate.empty()) plugin.why = "not `set`: " + p.version_gate + ". " + plugin.why;
  }
  if (!p.tuned.empty()) {
    int faster = 0, slower = 0;
    for (const Evidence& e : p.tuned) faster += e.beats, slower += e.loses;
    plugin.why += ". Checked with nccl[tuned]: faster than nccl at " + std::to_string(faster) + " of " +
                  std::to_string(p.tuned.size()) + " sizes, slower at " + std::to_string(slower);
    for (const Evidence& e : p.tuned)
      if (e.loses) plugin.evidence.push_back(e);
  } else if (!rules.empty()) {
    plugin.run_line = "arbench run --backend cuda --gpus " + std::to_string(p.world) +
                      " --family allreduce --variants 'nccl,nccl[tuned]' --tuner-table " + paths.table +
                      " --out verify-" + std::to_string(p.world) + ".json";
  }
  if (old_nccl) {
    plugin.status = S::gated;
    plugin.paste.clear();
    plugin.run_line.clear();
    const std::string which = c.stack.nccl ? "NCCL " + c.stack.nccl->text() + " (" + c.stack.source +
                                                 "), the one your engine loads,"
                                           : std::string("the NCCL judged");
    plugin.why = which + " looks up tuner interfaces v4, v3 and v2 only; arbench's plugin exports v5 and v6, which "
                 "NCCL looks up from " + std::string(plugin.entry->first) +
                 ": it would not be loaded, and NCCL keeps its own choice";
    plugin.versions = knob_for("nccl.tuner_plugin", c.stack, c.measured_nccl).mine +
                      ": NCCL looks up the tuner interfaces of arbench's plugin (v5, v6) from " +
                      std::string(plugin.entry->first) + " (read at " + std::string(plugin.entry->source.ref) + ")";
  }
  sec.settings.push_back(plugin);

  if (!rules.empty()) {
    if (!p.example_missing.empty()) {
      sec.settings.push_back(missing("nccl.example_plugin", p.example_missing, p.example_run_line));
    } else {
      bool too_old = false;
      EngineSetting ex = knob_setting(c, "nccl.example_plugin", S::try_it, &too_old);
      if (too_old || !ex.entry->last.empty()) {  // safe from the newest entry's release only
        const KnobFor kf = knob_for("nccl.example_plugin", c.stack, c.measured_nccl);
        const Knob& safe = knob("nccl.example_plugin");
        ex.status = S::gated;
        ex.why = std::string(too_old ? "the NCCL judged has no NCCL_TUNER_CONFIG_FILE (its example plugin reads it "
                                       "from " + std::string(kf.first) + ")"
                                     : "the NCCL judged crashes with this CSV: its example plugin reads "
                                       "NCCL_TUNER_CONFIG_FILE from " + std::string(kf.first) + " and crashes on the "
                                       "first matching row up to " + std::string(ex.entry->last)) +
                 "; it is safe from " + std::string(safe.first) + ": use arbench's plugin above, or upgrade NCCL first";
        ex.versions = kf.mine + ": NCCL_TUNER_CONFIG_FILE is read from " + std::string(kf.first) + ", safely from " +
                      std::string(safe.first) + " (read at " + std::string(safe.source.ref) + ")";
        sec.settings.push_back(ex);
        return sec;
      }
      ex.paste = "NCCL_TUNER_PLUGIN=libnccl-tuner-example.so NCCL_TUNER_CONFIG_FILE=" + paths.example_conf;
      if (!paths.carried_env.empty()) ex.paste += " " + paths.carried_env;
      ex.value = "the same choice with an explicit channel count on every row, 0.." +
                 size_text(p.example.back().max_bytes, "bytes");
      ex.why = "instead of arbench's plugin, and with NCCL 2.30.3 or newer only (caveat below)";
      sec.settings.push_back(ex);
    }
  }
  return sec;
}

}  // namespace

const char* status_name(SettingStatus s) {
  switch (s) {
    case S::set: return "set";
    case S::try_it: return "try";
    case S::keep: return "keep";
    case S::gated: return "gated";
    default: return "missing";
  }
}

std::vector<EngineSection> engine_sections(const Measured& m, const NcclPlan& nccl, const Findings& f,
                                           SettingsPaths paths, const StackVersions& stack,
                                           const VerdictOptions& verdict) {
  paths.carried_env = carried_env(m);
  GpuFacts gpu;
  if (!m.facts.gpus.empty()) gpu = {m.facts.gpus.front().name, m.facts.gpus.front().cc};
  const EngineContext c{m, nccl, f, paths, gpu, stack, parse_version(m.facts.nccl_version), verdict};
  std::vector<EngineSection> out = {nccl_section(c), vllm_section(c), sglang_section(c), trtllm_section(c),
                                    flashinfer_section(c)};
  for (EngineSection& e : out)  // every line says which versions it holds for
    for (EngineSetting& s : e.settings)
      if (s.versions.empty()) {
        const KnobFor kf = knob_for(s.knob, stack, c.measured_nccl);
        s.versions = kf.versions;
        if (!s.entry) s.entry = kf.entry;
      }
  return out;
}

}  // namespace arbench
