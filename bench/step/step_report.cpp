// StepReport → tables and JSON; see step_report.hpp.
#include "step/step_report.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "analysis/report_table.hpp"
#include "analysis/tune_report.hpp"  // format_size
#include "text/wrap.hpp"

namespace arbench {
namespace {

template <class T>
nlohmann::json opt_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

std::string percent(double fraction) { return format_fixed(fraction * 100, 1) + "%"; }

std::string code(const std::string& s, bool md) { return md ? "`" + s + "`" : s; }

// A row's rms relative error in percent, 3 decimals; "exact" for an exact variant.
std::string error_cell(bool lossy, const std::optional<double>& rms_rel_err) {
  if (!lossy) return "exact";
  return rms_rel_err ? format_fixed(*rms_rel_err * 100, 3) : "-";
}

// A shell command broken at spaces (outside quotes) into lines that end with " \\", so it can still
// be pasted as one command; continuation lines are indented by `indent` + 2.
std::string shell_lines(const std::string& cmd, std::size_t indent) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  for (char c : cmd) {
    if (quote == 0 && c == ' ') {
      if (!word.empty()) words.push_back(word);
      word.clear();
      continue;
    }
    if (c == '\'' || c == '"') quote = quote == c ? 0 : (quote == 0 ? c : quote);
    word += c;
  }
  if (!word.empty()) words.push_back(word);
  // An option stays with its value ("-b 2097152").
  std::vector<std::string> groups;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const bool takes_next = words[i].size() > 1 && words[i][0] == '-' && i + 1 < words.size() && words[i + 1][0] != '-';
    groups.push_back(takes_next ? words[i] + " " + words[i + 1] : words[i]);
    i += takes_next ? 1 : 0;
  }
  words = groups;
  std::string out(indent, ' '), line;
  for (const std::string& w : words) {
    if (!line.empty() && indent + line.size() + 1 + w.size() + 2 > kConsoleWidth) {
      out += line + " \\\n" + std::string(indent + 2, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  return out + line + "\n";
}

// A line of prose: as it is in markdown (which reflows), within the console's width in text.
std::string prose(const std::string& line, bool md) { return md ? line + "\n" : fit_line(line, 2); }

}  // namespace

std::string format_step_header(const StepReport& rep, ReportFormat format) {
  const bool md = format == ReportFormat::markdown;
  std::string out = md ? "### arbench step\n\n" : "arbench step: ";
  std::string line = "the all-reduces of one tensor-parallel decode / verify step, projected from " + code(rep.source_path, md);
  if (!rep.backend.empty()) line += " (backend " + rep.backend + ", " + rep.timing + " timing)";
  out = prose(out + line, md);
  if (rep.timing == "cpu")
    out += prose("CPU timing: threads of the host backend stand in for the GPUs; the arithmetic is real, the times "
                 "are not GPU times",
                 md);
  return out;
}

std::string format_step(const StepReport& rep, ReportFormat format) {
  if (format == ReportFormat::json) return step_file_json({rep}).dump(2) + "\n";
  const bool md = format == ReportFormat::markdown;
  const std::string n = std::to_string(rep.allreduces_per_step), h = std::to_string(rep.model.hidden);
  std::string out = md ? "\n#### " + rep.model.name + "\n\n" : "\n";
  out += prose((md ? "" : rep.model.name + ": ") + std::to_string(rep.model.layers) + " layers, hidden " + h + ", " +
                   rep.dtype + ": " + n +
                   " all-reduces per step (2 per layer: attention out, MLP out; each with residual add + RMSNorm)",
               md);
  out += prose("tokens = batch x (draft + 1); message = tokens x " + h + " x " + std::to_string(rep.dtype_bytes) +
                   " B; ms/step = " + n + " x us per all-reduce / 1000; tok/s max = tokens / step time (the ceiling the "
                   "all-reduces alone allow)",
               md);
  if (rep.step_ms)
    out += prose("comm share = ms/step / the measured engine step of " + format_fixed(*rep.step_ms, 3) + " ms", md);
  for (const StepTable& t : rep.tables) {
    out += "\n" + prose((md ? "**" : "") + std::to_string(t.world) + " GPUs" + (md ? "**" : "") + ": " +
                            t.baseline_note,
                        md) +
           (md ? "\n" : "");
    std::vector<std::string> head = {"batch", "draft", "tokens", "message", "variant", "norm",
                                     "us/all-reduce", "ms/step", "saved ms", "saving", "tok/s max"};
    std::vector<bool> right = {true, true, true, true, false, false, true, true, true, true, true};
    if (rep.step_ms) {
      head.push_back("comm share");
      right.push_back(true);
    }
    // Low-precision rows carry their error beside their time: the column appears when any does.
    const bool any_lossy = std::any_of(t.rows.begin(), t.rows.end(), [](const StepRow& r) { return r.lossy; });
    if (any_lossy) {
      head.insert(head.begin() + 7, "err %");
      right.insert(right.begin() + 7, true);
    }
    // Two tables: the complete choices (with the norm), then the all-reduces alone.
    bool any_interpolated = false;
    for (const bool with_norm : {true, false}) {
      ReportTable tab(head, right);
      bool any = false;
      for (const StepRow& r : t.rows) {
        if (r.includes_norm != with_norm) continue;
        any = true;
        any_interpolated = any_interpolated || r.interpolated;
        const bool is_base = r.variant == t.baseline;
        std::vector<std::string> cells = {
            std::to_string(r.batch), std::to_string(r.draft), std::to_string(r.tokens),
            format_size(r.message_bytes, "bytes"), code(r.variant, md), r.includes_norm ? "yes" : "no",
            format_fixed(r.us_per_allreduce, 2) + (r.interpolated ? "*" : ""), format_fixed(r.ms_per_step, 3),
            is_base ? "baseline" : (r.saving_ms ? format_fixed(*r.saving_ms, 3) : "-"),
            is_base ? "" : (r.saving_fraction ? percent(*r.saving_fraction) : "-"),
            format_fixed(r.tokens_per_s_ceiling, 0)};
        if (rep.step_ms) cells.push_back(r.comm_share ? percent(*r.comm_share) : "-");
        if (any_lossy) cells.insert(cells.begin() + 7, error_cell(r.lossy, r.rms_rel_err));
        tab.add_row(std::move(cells));
      }
      if (!any) continue;
      out += with_norm ? "all-reduce + residual add + RMSNorm, as a decoder layer runs it (ranked):\n"
                       : "all-reduce alone (the norm each still needs is not counted: ranked apart from the rows "
                         "with the norm):\n";
      out += (md ? "\n" : "") + (md ? tab.markdown() : tab.text()) + (md ? "\n" : "");
    }
    if (!t.choices.empty()) {
      out += "engine default (" + std::string(kEngineDefault) +
             ": NCCL, then a separate norm kernel) against the fastest choice with the norm, tok/s ceilings:\n";
      ReportTable ch({"batch", "draft", "default tok/s", "best", "best tok/s", "gain", "how"},
                     {true, true, true, false, true, true, false});
      for (const StepChoice& c : t.choices)
        ch.add_row({std::to_string(c.batch), std::to_string(c.draft), format_fixed(c.default_tps, 0),
                    code(c.best_variant, md) +
                        (c.best_rms_rel_err ? " (err " + error_cell(true, c.best_rms_rel_err) + "%)" : ""),
                    format_fixed(c.best_tps, 0),
                    c.default_tps > 0 ? format_fixed(c.best_tps / c.default_tps, 2) + "x" : "-",
                    c.how.empty() ? "(the default)" : c.how});
      out += (md ? "\n" : "") + (md ? ch.markdown() : ch.text());
      out += "  the engine lines that switch it, with their evidence: arbench settings RESULT.json\n";
    }
    if (any_lossy)
      out += (md ? "\n" : "") +
             prose("err % = the low-precision rows' rms error relative to the exact sum, in percent (the worse of "
                   "the two measured sizes when interpolated); exact = bit-exact variants",
                   md);
    if (any_interpolated) out += (md ? "\n" : "") + std::string("* interpolated on a log-log scale between the two nearest measured sizes\n");
    for (const std::string& note : t.notes) out += (md ? "\n" : "") + prose("note: " + note, md);
  }
  if (rep.step_ms)
    for (const StepTable& t : rep.tables)
      for (const StepRow& r : t.rows)
        if (r.comm_share && *r.comm_share > 1) {
          out += prose("note: some projections exceed the measured step: the engine overlaps its all-reduces, or the "
                       "result comes from another machine or backend",
                       md);
          return out;
        }
  return out;
}

std::string format_missing(const StepReport& rep, const std::string& prefix) {
  std::string out = fit_line(prefix + "cannot project " + rep.model.name + " without extrapolating: " + rep.source_path +
                                 " does not cover these sizes (arbench interpolates between measured sizes, never "
                                 "beyond them)",
                             2);
  for (const MissingSizes& m : rep.missing) {
    std::string worlds;
    for (std::size_t i = 0; i < m.worlds.size(); ++i) worlds += (i ? "," : "") + std::to_string(m.worlds[i]);
    std::string line = "  " + m.family + ", gpus " + worlds + ", " + rep.dtype;
    if (m.family == "allreduce_rmsnorm") line += ", hidden " + std::to_string(m.hidden);
    if (m.in_place) line += ", in-place";
    line += " (";
    for (std::size_t i = 0; i < m.variants.size(); ++i) line += (i ? ", " : "") + m.variants[i];
    line += "): missing ";
    for (std::size_t i = 0; i < m.missing_bytes.size(); ++i) {
      line += (i ? ", " : "") + format_size(m.missing_bytes[i], "bytes");
      if (i < m.missing_tokens.size()) line += " (" + std::to_string(m.missing_tokens[i]) + " tokens)";
    }
    out += fit_line(line, 4) + "    measure every size this projection needs with:\n" + shell_lines(m.run_line, 6);
  }
  out += fit_line("  then run arbench step on that result (or drop the variants with --variants, or the sizes with "
                  "--batch/--draft)",
                  4);
  return out;
}

nlohmann::json step_model_json(const StepReport& rep) {
  using nlohmann::json;
  json tables = json::array();
  for (const StepTable& t : rep.tables) {
    json rows = json::array();
    for (const StepRow& r : t.rows)
      rows.push_back({{"batch", r.batch},
                      {"draft", r.draft},
                      {"tokens", r.tokens},
                      {"message_bytes", r.message_bytes},
                      {"variant", r.variant},
                      {"family", r.family},
                      {"includes_norm", r.includes_norm},
                      {"interpolated", r.interpolated},
                      {"us_per_allreduce", r.us_per_allreduce},
                      {"ms_per_step", r.ms_per_step},
                      {"saving_ms", opt_json(r.saving_ms)},
                      {"saving_fraction", opt_json(r.saving_fraction)},
                      {"tokens_per_s_ceiling", r.tokens_per_s_ceiling},
                      {"comm_share", opt_json(r.comm_share)},
                      {"lossy", r.lossy},
                      {"max_abs_err", opt_json(r.max_abs_err)},
                      {"rms_rel_err", opt_json(r.rms_rel_err)}});
    json choices = json::array();
    for (const StepChoice& c : t.choices)
      choices.push_back({{"batch", c.batch},
                         {"draft", c.draft},
                         {"default", c.default_variant},
                         {"default_tokens_per_s_ceiling", c.default_tps},
                         {"best", c.best_variant},
                         {"best_tokens_per_s_ceiling", c.best_tps},
                         {"how", c.how},
                         {"best_rms_rel_err", opt_json(c.best_rms_rel_err)}});
    tables.push_back({{"world", t.world},
                      {"baseline", t.baseline.empty() ? json() : json(t.baseline)},
                      {"baseline_note", t.baseline_note},
                      {"notes", t.notes},
                      {"rows", rows},
                      {"engine_default_vs_best", choices}});
  }
  return {{"name", rep.model.name},
          {"hidden", rep.model.hidden},
          {"layers", rep.model.layers},
          {"dtype", rep.dtype},
          {"dtype_bytes", rep.dtype_bytes},
          {"allreduces_per_step", rep.allreduces_per_step},
          {"step_ms", opt_json(rep.step_ms)},
          {"tables", tables},
          {"ignored", rep.ignored}};
}

nlohmann::json step_file_json(const std::vector<StepReport>& reports) {
  using nlohmann::json;
  json j{{"schema", "arbench-step"}, {"schema_version", kStepSchemaVersion}};
  if (!reports.empty()) {
    const StepReport& r = reports.front();
    j["source"] = {{"result", r.source_path},
                   {"backend", r.backend},
                   {"timing", r.timing},
                   {"arbench_revision", r.revision},
                   {"fingerprint", r.fingerprint}};
  }
  j["models"] = json::array();
  for (const StepReport& r : reports) j["models"].push_back(step_model_json(r));
  return j;
}

}  // namespace arbench
