// Text and JSON of `arbench settings`; see settings_report.hpp.
#include "settings/settings_report.hpp"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/report_table.hpp"
#include "settings/catalogue/knobs.hpp"

namespace arbench {
namespace {

using nlohmann::json;

constexpr std::size_t kWidth = 120;

// `text` after `label`, wrapped at kWidth with a hanging indent of `indent` columns.
std::string wrapped(const std::string& label, const std::string& text, std::size_t indent) {
  std::string out = label;
  if (out.size() < indent)
    out.resize(indent, ' ');
  else
    out += ' ';
  std::size_t col = out.size();
  bool line_empty = true;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t end = text.find(' ', i);
    if (end == std::string::npos) end = text.size();
    // "(p 0.13, n 12/12)" stays on one line, with what follows its ')' up to the next blank.
    if (const std::size_t close = text[i] == '(' ? text.find(')', i) : std::string::npos;
        close != std::string::npos && close >= end)
      end = std::min(text.size(), text.find(' ', close));
    const std::string word = text.substr(i, end - i);
    i = end + 1;
    if (word.empty()) continue;
    if (!line_empty && col + 1 + word.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    line_empty = false;
  }
  return out + "\n";
}

// A line to copy whole (`paste`, `verify`, a command) after `label`: as it is when it fits in
// kWidth, else broken at the blanks outside quotes into lines ending in " \\" (a shell
// continuation, so it still pastes as one command) under a hanging indent of `indent` columns.
// A quoted argument longer than a line stands alone on its own.
std::string pasteable(const std::string& label, const std::string& text, std::size_t indent) {
  if (label.size() + text.size() <= kWidth) return label + text + "\n";
  std::vector<std::string> words(1);
  char quote = 0;
  for (char c : text) {
    if (quote == 0 && c == ' ') {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    if (c == '\'' || c == '"') quote = quote == '\0' ? c : (quote == c ? '\0' : quote);
    words.back() += c;
  }
  std::string out = label, line;
  std::size_t col = label.size();
  for (const std::string& w : words) {
    if (w.empty()) continue;
    if (!line.empty() && col + 1 + w.size() + 2 > kWidth) {  // room for " \\"
      out += line + " \\\n" + std::string(indent, ' ');
      line.clear();
      col = indent;
    }
    col += (line.empty() ? 0 : 1) + w.size();
    line += (line.empty() ? "" : " ") + w;
  }
  return out + line + "\n";
}

std::string world_title(const WorldSettings& w) {
  return std::to_string(w.world) + " GPUs (tensor parallel " + std::to_string(w.world) + ", " +
         (w.nccl.nvlink ? "every GPU pair NVLink-connected" : "PCIe: not every GPU pair is NVLink-connected") +
         (w.nccl.nnodes > 1 ? ", " + std::to_string(w.nccl.nnodes) + " nodes" : "") + ")";
}

// One setting: status and knob, then its lines under a label column (paste and run lines wrap
// only as shell continuations: they are meant to be copied whole).
std::string format_setting(const EngineSetting& s) {
  const Knob& k = s.entry ? *s.entry : knob(s.knob);
  const std::string pad(10, ' ');
  constexpr std::size_t kText = 20;
  // The knob's name first (what to look for in the engine's docs), then what it does.
  const std::string head = k.kind == KnobKind::library_behaviour ? std::string(k.what)
                                                                   : std::string(k.name) + ": " + std::string(k.what);
  std::string out = wrapped("  " + std::string(status_name(s.status)), head, pad.size());
  if (!s.paste.empty()) out += pasteable(pad + "paste     ", s.paste, kText + 2);
  if (!s.value.empty()) out += wrapped(pad + "value", s.value, kText);
  if (!s.why.empty()) out += wrapped(pad + "why", s.why, kText);
  if (!s.versions.empty()) out += wrapped(pad + "versions", s.versions, kText);
  for (std::size_t i = 0; i < s.evidence.size() && i < 4; ++i)
    out += wrapped(pad + (i == 0 ? "evidence" : ""), evidence_text(s.evidence[i]), kText);
  if (s.evidence.size() > 4)
    out += pad + std::string(10, ' ') + "(" + std::to_string(s.evidence.size() - 4) + " more in settings.json)\n";
  if (!s.run_line.empty())
    out += pasteable(pad + (s.status == SettingStatus::missing ? "measure   " : "verify    "), s.run_line, kText + 2);
  if (!k.caveat.empty() && s.status != SettingStatus::keep && s.status != SettingStatus::gated)
    out += wrapped(pad + (k.verified ? "caveat" : "unverified"), std::string(k.caveat), kText);
  return out;
}

json advantage_json(const Advantage& a) {
  json j = {{"a", a.a}, {"b", a.b}, {"axis", a.axis}, {"measured", a.measured}};
  if (!a.measured) {
    j["missing"] = a.missing;
    j["run_line"] = a.run_line;
    return j;
  }
  j["lead"] = a.lead;
  j["everywhere"] = a.everywhere;
  j["wins"] = a.wins;
  j["losses"] = a.losses;
  j["evidence"] = json::array();
  for (const Evidence& e : a.evidence) j["evidence"].push_back(evidence_json(e));
  return j;
}

// NCCL builds measured side by side (findings.hpp, NcclBuildFinding): the verdict, why, the evidence that counts
// (at most 4 lines), the symmetric-memory pair when both ran, and how to see it all.
std::string format_nccl_builds(const std::vector<NcclBuildFinding>& builds) {
  if (builds.empty()) return {};
  const std::string pad(10, ' ');
  constexpr std::size_t kText = 20;
  std::string out = "\nNCCL builds measured side by side (arbench run --nccl-lib)\n";
  for (const NcclBuildFinding& b : builds) {
    out += wrapped("  " + b.verdict, b.variant + (b.path.empty() ? "" : " (" + b.path + ")") + " instead of nccl, the run's "
                                     "default" + (b.default_version.empty() ? "" : " (NCCL " + b.default_version + ")"),
                   pad.size());
    out += wrapped(pad + "why", b.summary, kText);
    std::vector<Evidence> shown;
    for (const Evidence& e : b.plain.evidence)
      if (e.beats || e.loses) shown.push_back(e);
    for (std::size_t i = 0; i < shown.size() && i < 4; ++i)
      out += wrapped(pad + (i == 0 ? "evidence" : ""), evidence_text(shown[i]), kText);
    if (shown.size() > 4) out += pad + std::string(10, ' ') + "(" + std::to_string(shown.size() - 4) + " more in settings.json)\n";
    if (b.symm.measured)
      out += wrapped(pad + "symmetric", b.symm.a + " against " + b.symm.b + ": faster at " + std::to_string(b.symm.wins) +
                                            " and slower at " + std::to_string(b.symm.losses) + " of " +
                                            std::to_string(b.symm.evidence.size()) + " sizes",
                     kText);
    out += pasteable(pad + (b.verdict == "missing" ? "measure   " : "verify    "), b.verify, kText + 2);
  }
  return out;
}

// NCCL's best against the speed-of-light floor (findings.hpp, SolHeadroom): the sizes where there is
// nothing to win, then how far above the floor NCCL is elsewhere. Nothing when no floor was recorded.
std::string format_headroom(const std::vector<SolHeadroom>& headroom) {
  if (headroom.empty()) return "";
  std::string none, rest;
  const SolHeadroom* example = nullptr;
  double lo = 0, hi = 0;
  for (const SolHeadroom& h : headroom) {
    if (h.nothing_to_win()) {
      none += (none.empty() ? "" : ", ") + size_arg(h.size);
      example = &h;
      continue;
    }
    const double x = h.nccl_us / h.floor_us;
    lo = rest.empty() ? x : std::min(lo, x);
    hi = rest.empty() ? x : std::max(hi, x);
    rest += (rest.empty() ? "" : ", ") + size_arg(h.size);
  }
  std::string out;
  if (example != nullptr)
    out += wrapped("floor:", "nothing to win here at " + none + ": NCCL's best is within " +
                                 format_fixed(kNothingToWin * 100, 0) + "% of the speed-of-light floor (at " +
                                 size_arg(example->size) + ": " + example->nccl_variant + " " +
                                 format_fixed(example->nccl_us, 2) + " us, floor " + format_fixed(example->floor_us, 2) +
                                 " us of " + example->floor_variant + "'s schedule)",
                   7);
  if (!rest.empty())
    out += wrapped("floor:", "NCCL's best is " + format_fixed(lo, 2) +
                                 (format_fixed(lo, 2) == format_fixed(hi, 2) ? "" : "x to " + format_fixed(hi, 2)) +
                                 "x the lowest floor at " + rest + ": the room a faster schedule could win",
                   7);
  return out;
}

json headroom_json(const std::vector<SolHeadroom>& headroom) {
  json out = json::array();
  for (const SolHeadroom& h : headroom)
    out.push_back({{"size", h.size}, {"nccl_variant", h.nccl_variant}, {"nccl_us", h.nccl_us},
                   {"floor_variant", h.floor_variant}, {"floor_us", h.floor_us},
                   {"nothing_to_win", h.nothing_to_win()}});
  return out;
}

json nccl_builds_json(const std::vector<NcclBuildFinding>& builds) {
  json out = json::array();
  for (const NcclBuildFinding& b : builds)
    out.push_back({{"variant", b.variant}, {"label", b.label}, {"version", b.version}, {"path", b.path},
                   {"default_version", b.default_version}, {"verdict", b.verdict}, {"summary", b.summary},
                   {"verify", b.verify}, {"plain", advantage_json(b.plain)}, {"symm", advantage_json(b.symm)}});
  return out;
}

json ranges_json(const std::vector<NcclRange>& ranges) {
  json out = json::array();
  for (const NcclRange& r : ranges) {
    json j = {{"min_bytes", r.min_bytes}, {"max_bytes", r.max_bytes}, {"variant", r.variant},
              {"keeps_nccl", r.keeps_nccl()}, {"channels", r.channels}, {"note", r.note}};
    j["algo"] = r.keeps_nccl() ? json(nullptr) : json(tuner::algo_name(r.algo));
    j["proto"] = r.keeps_nccl() ? json(nullptr) : json(tuner::proto_name(r.proto));
    j["evidence"] = json::array();
    for (const Evidence& e : r.evidence) j["evidence"].push_back(evidence_json(e));
    out.push_back(std::move(j));
  }
  return out;
}

// "vllm 0.18.0, NCCL 2.29.2 (--engine/--nccl)"; without versions, what each line says instead.
std::string stack_text(const StackVersions& st) {
  if (st.empty()) return "not given (--engine, --nccl, --python): each line says which versions it was checked against";
  std::string t;
  for (const auto& [name, v] : st.engines) t += (t.empty() ? "" : ", ") + name + " " + v.text();
  if (st.nccl) t += (t.empty() ? "" : ", ") + std::string("NCCL ") + st.nccl->text();
  return t + (st.source.empty() ? "" : " (" + st.source + ")");
}

}  // namespace

std::string format_settings(const SettingsReport& rep) {
  std::string out = "arbench settings: what to set in your engine, from measurements on this machine\n";
  std::string sources;
  for (const std::string& s : rep.sources) sources += (sources.empty() ? "" : ", ") + s;
  out += wrapped("results", sources, 9);
  out += wrapped("machine", (rep.gpu.empty() ? std::string("GPU unknown") : rep.gpu + " (cc " + rep.cc + ")") +
                                ", CUDA driver " + (rep.cuda_driver.empty() ? "unknown" : rep.cuda_driver) + ", NCCL " +
                                (rep.nccl_version.empty() ? "unknown" : rep.nccl_version) + ", fingerprint " +
                                (rep.fingerprint.empty() ? "unknown" : rep.fingerprint),
                 9);
  out += wrapped("rule", "a choice counts where it is at least " + format_fixed(rep.verdict.threshold * 100, 1) +
                             "% faster with Mann-Whitney p < " + format_p_value(rep.verdict.alpha) +
                             " (--margin, --alpha); " + rep.dtype +
                             (rep.hidden > 0 ? ", fused family at hidden " + std::to_string(rep.hidden) : "") +
                             (rep.prefer_pull ? "; pull beats push on this box (arbench doctor): oneshot-pull stands for "
                                                "one-shot where oneshot-push does not beat it"
                                              : ""),
                 9);
  out += wrapped("versions", stack_text(rep.stack), 9);
  out += wrapped("files", (rep.table_text.empty() ? std::string("(no tuner table: ") + rep.table_missing + ")" : rep.paths.table) +
                             (rep.example_conf_text.empty() ? "" : ", " + rep.paths.example_conf),
                 9);
  out += "plugin   " + rep.paths.plugin + "\n";
  out += wrapped("status", "set: in the command line below; try: measured to help, but the knob or its behaviour "
                           "on this GPU is not verified; keep: the default is right; gated: the engine cannot take "
                           "it here; missing: measure it with the line given",
                 9);
  for (const WorldSettings& w : rep.worlds) {
    const std::string title = " " + world_title(w) + " ";
    const std::size_t bar = title.size() < kWidth ? (kWidth - title.size()) / 2 : 0;
    out += "\n" + std::string(bar, '=') + title + std::string(bar, '=') + "\n";
    for (const std::string& n : w.nccl.notes) out += wrapped("note:", n, 6);
    out += format_headroom(w.findings.headroom);
    out += format_nccl_builds(w.nccl_builds);
    for (const EngineSection& e : w.engines) {
      out += "\n" + e.engine + "\n";
      for (const EngineSetting& s : e.settings) out += format_setting(s);
      if (!e.command.empty()) {
        out += "  command:\n";
        for (const std::string& line : e.command) out += pasteable("    ", line, 6);
      }
    }
  }
  if (!rep.ignored.empty()) {
    out += "\nleft out (" + std::to_string(rep.ignored.size()) + "):\n";
    for (const std::string& s : rep.ignored) out += wrapped("", s, 2);
  }
  return out;
}

json settings_json(const SettingsReport& rep) {
  json j;
  j["schema"] = "arbench-settings";
  j["schema_version"] = kSettingsSchemaVersion;
  j["sources"] = rep.sources;
  j["machine"] = {{"gpu", rep.gpu}, {"cc", rep.cc}, {"cpu", rep.cpu}, {"cuda_driver", rep.cuda_driver},
                  {"nccl_version", rep.nccl_version}, {"fingerprint", rep.fingerprint}, {"nodes", rep.nodes}};
  j["rule"] = {{"alpha", rep.verdict.alpha}, {"margin", rep.verdict.threshold}, {"prefer_pull", rep.prefer_pull}};
  j["versions"] = stack_text(rep.stack);
  j["dtype"] = rep.dtype;
  j["hidden"] = rep.hidden;
  j["files"] = {{"plugin", rep.paths.plugin},
                {"table", rep.table_text.empty() ? json(nullptr) : json(rep.paths.table)},
                {"example_conf", rep.example_conf_text.empty() ? json(nullptr) : json(rep.paths.example_conf)}};
  if (!rep.table_missing.empty()) j["table_missing"] = rep.table_missing;
  j["worlds"] = json::array();
  for (const WorldSettings& w : rep.worlds) {
    json jw = {{"world", w.world}, {"nvlink", w.nccl.nvlink}, {"nodes", w.nccl.nnodes}};
    json nccl = {{"ranges", ranges_json(w.nccl.ranges)}, {"example", ranges_json(w.nccl.example)},
                 {"notes", w.nccl.notes}};
    if (!w.nccl.missing.empty()) nccl["missing"] = {{"why", w.nccl.missing}, {"run_line", w.nccl.run_line}};
    if (!w.nccl.example_missing.empty())
      nccl["example_missing"] = {{"why", w.nccl.example_missing}, {"run_line", w.nccl.example_run_line}};
    nccl["max_channels"] = w.nccl.max_channels(false);
    nccl["tuned"] = json::array();
    for (const Evidence& e : w.nccl.tuned) nccl["tuned"].push_back(evidence_json(e));
    jw["nccl"] = std::move(nccl);
    jw["findings"] = {{"custom", advantage_json(w.findings.custom)},       {"shots", advantage_json(w.findings.shots)},
                      {"nccl_symm", advantage_json(w.findings.nccl_symm)}, {"fusion", advantage_json(w.findings.fusion)},
                      {"fused_shots", advantage_json(w.findings.fused_shots)}};
    if (!w.findings.headroom.empty()) jw["speed_of_light"] = headroom_json(w.findings.headroom);
    if (!w.nccl_builds.empty()) jw["nccl_builds"] = nccl_builds_json(w.nccl_builds);
    jw["engines"] = json::array();
    for (const EngineSection& e : w.engines) {
      json je = {{"engine", e.engine}, {"command", e.command}, {"settings", json::array()}};
      for (const EngineSetting& s : e.settings) {
        const Knob& k = s.entry ? *s.entry : knob(s.knob);
        const std::string source = std::string(k.source.repo) + " " + std::string(k.source.ref) + ": " +
                                   std::string(k.source.files);
        json js = {{"knob", s.knob},     {"what", k.what},       {"status", status_name(s.status)},
                   {"paste", s.paste},   {"value", s.value},     {"why", s.why},
                   {"name", k.name},     {"kind", kind_name(k.kind)}, {"releases", release_range(k)},
                   {"versions", s.versions}, {"source", source}, {"verified", k.verified}, {"caveat", k.caveat}};
        js["evidence"] = json::array();
        for (const Evidence& e2 : s.evidence) js["evidence"].push_back(evidence_json(e2));
        if (!s.run_line.empty()) js["run_line"] = s.run_line;
        je["settings"].push_back(std::move(js));
      }
      jw["engines"].push_back(std::move(je));
    }
    j["worlds"].push_back(std::move(jw));
  }
  j["ignored"] = rep.ignored;
  return j;
}

}  // namespace arbench
