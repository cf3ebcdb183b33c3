// Two NCCL libraries of one run as BASE and NEW; see compare_between.hpp.
#include "analysis/compare_between.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "arbench/core/case.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/core/nccl_library_name.hpp"

namespace arbench {
namespace {

struct Side {
  std::string label;    // "" for the default library
  std::string version;  // "" when the run does not record it
  std::string path;
};

// Every library of `run` as "nccl (NCCL 2.28.9), nccl@2.29.2 (NCCL 2.29.2)": the provenance's, and
// any label its cases carry that the provenance does not list.
std::string libraries_of(const ResultFile& run) {
  std::string out = "nccl" + (run.nccl_version.empty() ? std::string() : " (NCCL " + run.nccl_version + ")");
  std::set<std::string> said;
  for (const ResultNcclLibrary& l : run.nccl_libraries)
    if (!l.label.empty() && said.insert(l.label).second) out += ", nccl@" + l.label + " (NCCL " + l.version + ")";
  for (const ResultCase& c : run.cases)
    if (const std::string lib = split_library(c.variant).library; !lib.empty() && said.insert(lib).second)
      out += ", nccl@" + lib;
  return out;
}

Side resolve(const ResultFile& run, const std::string& selector) {
  const std::string label = selector == "nccl" ? std::string() : selector.substr(5);
  const auto default_side = [&] {
    return Side{"", run.nccl_version, run.stack.count("nccl_library") ? run.stack.at("nccl_library") : std::string()};
  };
  if (label.empty()) return default_side();
  for (const ResultNcclLibrary& l : run.nccl_libraries)
    if (l.label == label) return {label, l.version, l.path};
  for (const ResultCase& c : run.cases)
    if (split_library(c.variant).library == label) return {label, "", ""};  // a run that did not record it
  if (!run.nccl_version.empty() && label == run.nccl_version) return default_side();  // the default, by version
  throw UsageError("--between " + selector + ": " + run.path + " has no NCCL library " + selector +
                   "; its libraries: " + libraries_of(run) + " (`nccl` is the run's default)");
}

// `c` under the name it has for the default library, when it is a case of library `label`.
std::optional<ResultCase> as_default(const ResultCase& c, const std::string& label) {
  if (c.variant.empty()) return std::nullopt;  // not an arbench case name
  const LibraryVariant lv = split_library(c.variant);
  if (lv.library != label) return std::nullopt;
  std::optional<Case> parsed = Case::parse(c.name);
  if (!parsed) return std::nullopt;
  parsed->variant = lv.variant;
  ResultCase out = c;
  out.variant = lv.variant;
  out.name = parsed->name();
  return out;
}

ResultFile side_file(const ResultFile& run, const Side& s, const std::string& selector) {
  ResultFile f = run;
  f.path = run.path + " [" + selector + "]";
  f.cases.clear();
  for (const ResultCase& c : run.cases)
    if (std::optional<ResultCase> d = as_default(c, s.label)) f.cases.push_back(std::move(*d));
  // The stack each side ran with: its NCCL (compare heads its report with the change).
  for (const auto& [key, value] : {std::pair<const char*, std::string>{"nccl_version", s.version},
                                   std::pair<const char*, std::string>{"nccl_library", s.path}}) {
    if (value.empty())
      f.stack.erase(key);  // unknown, never a change
    else
      f.stack[key] = value;
  }
  f.nccl_version = s.version;
  return f;
}

std::set<std::string> variants_of(const ResultFile& f) {
  std::set<std::string> v;
  for (const ResultCase& c : f.cases) v.insert(c.variant);
  return v;
}

}  // namespace

std::string library_selector_problem(const std::string& text) {
  if (text == "nccl") return {};
  if (text.rfind("nccl@", 0) != 0)
    return "'" + text + "' is not a library of a run: nccl (the run's default) or nccl@<label> (one of --nccl-lib)";
  if (const std::string bad = nccl_label_problem(text.substr(5)); !bad.empty()) return "'" + text + "': the label " + bad;
  return {};
}

BetweenSplit split_between(const ResultFile& run, const std::string& a, const std::string& b) {
  for (const std::string& s : {a, b})
    if (const std::string why = library_selector_problem(s); !why.empty()) throw UsageError("--between: " + why);
  const Side sa = resolve(run, a), sb = resolve(run, b);
  if (sa.label == sb.label)
    throw UsageError("--between " + a + "," + b + ": both name the same library of " + run.path +
                     "; name two of its libraries: " + libraries_of(run));
  BetweenSplit out{side_file(run, sa, a), side_file(run, sb, b), {}};
  // Only the variants both measured: one library's own (nccl[tuned], a skipped nccl-symm@...) is no change.
  const std::set<std::string> va = variants_of(out.base), vb = variants_of(out.next);
  for (const std::string& v : va)
    if (!vb.count(v)) out.left_out.push_back(with_library(v, sa.label) + ": " + b + " has no " + v);
  for (const std::string& v : vb)
    if (!va.count(v)) out.left_out.push_back(with_library(v, sb.label) + ": " + a + " has no " + v);
  std::erase_if(out.base.cases, [&](const ResultCase& c) { return !vb.count(c.variant); });
  std::erase_if(out.next.cases, [&](const ResultCase& c) { return !va.count(c.variant); });
  if (out.base.cases.empty() || out.next.cases.empty())
    throw UsageError("--between " + a + "," + b + ": " + run.path + " measured no variant with both (" + a + ": " +
                     std::to_string(va.size()) + " variant(s), " + b + ": " + std::to_string(vb.size()) +
                     "); run both libraries in one sweep: arbench run --nccl-lib ... --variants 'nccl,nccl@*'");
  return out;
}

}  // namespace arbench
