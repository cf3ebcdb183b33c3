// Choosing a catalogue entry for the user's versions, and the docs table; see knobs.hpp.
#include <stdexcept>
#include <string>

#include "settings/catalogue/knobs.hpp"

namespace arbench {
namespace {

std::optional<Version> release(std::string_view s) {
  return s.empty() ? std::nullopt : parse_version(std::string(s));
}

std::string s(std::string_view v) { return std::string(v); }

}  // namespace

const char* kind_name(KnobKind k) {
  switch (k) {
    case KnobKind::env_var: return "env var";
    case KnobKind::flag: return "flag";
    case KnobKind::config_key: return "config key";
    case KnobKind::api_argument: return "API argument";
    default: return "behaviour";
  }
}

bool says_not_in_release(const Knob& k) { return k.caveat.find(kNotInRelease) != std::string_view::npos; }

bool has_release(const Knob& k) { return !k.first.empty() || !k.last.empty() || !k.source.release.empty(); }

std::string release_range(const Knob& k) {
  if (k.first.empty() && k.last.empty()) return "every release read";
  if (k.last.empty()) return s(k.first) + " and later";
  if (k.first.empty()) return "up to " + s(k.last);
  return s(k.first) + " to " + s(k.last);
}

KnobFor knob_for(std::string_view id, const StackVersions& stack, const std::optional<Version>& fallback_nccl) {
  std::vector<const Knob*> entries;
  for (const Knob& k : knobs())
    if (k.id == id) entries.push_back(&k);
  if (entries.empty()) throw std::out_of_range("unknown knob " + s(id));
  const Knob& newest = *entries.back();
  const bool is_nccl = newest.package == "nccl";
  const std::optional<Version> given = is_nccl ? stack.nccl : stack.engine(s(newest.package));
  const std::optional<Version> v = given ? given : is_nccl ? fallback_nccl : std::nullopt;
  KnobFor out;
  out.given = given.has_value();
  out.entry = &newest;
  out.first = entries.front()->first;
  const std::string who = s(newest.engine) + " ";
  // "0.17.0 and later (read at REF)"; "as read at REF (no release range known)" where a release was
  // read but no range is known; "as read at REF: not in a release we could find" where none was.
  auto held = [](const Knob& k) {
    const std::string at = s(k.source.ref);
    if (!k.first.empty() || !k.last.empty()) return release_range(k) + " (read at " + at + ")";
    if (!k.source.release.empty()) return "as read at " + at + " (no release range known)";
    return "as read at " + at + ": " + s(kNotInRelease);
  };
  if (!v) {
    out.versions = "checked against " + who + held(newest) + "; give " +
                   (is_nccl ? std::string("--nccl VERSION") : "--engine " + s(newest.package) + "=VERSION") +
                   " for yours";
    return out;
  }
  const std::string mine = who + v->text() + (given ? " (given)" : " (the measurement's; give --nccl for your engine's)");
  out.mine = mine;
  const Knob& oldest = *entries.front();
  const auto oldest_first = release(oldest.first);
  if (const auto absent = release(oldest.absent_through); absent && *v <= *absent) {
    out.lacks = true;
    out.versions = mine + ": " + s(oldest.name) + " is in no release up to " + s(oldest.absent_through) +
                   (oldest_first ? " (read); it is in " + s(oldest.first) : " (the newest read; " + s(kNotInRelease) + ")");
    return out;
  }
  if (oldest_first && *v < *oldest_first && !oldest.absent_through.empty()) {  // releases between the two were not read
    out.unknown = true;
    out.entry = &oldest;
    out.versions = mine + ": unknown whether it has " + s(oldest.name) + ": absent up to " + s(oldest.absent_through) +
                   ", present in " + s(oldest.first) + " (read at " + s(oldest.source.ref) +
                   "); the releases between were not read";
    return out;
  }
  if (oldest_first && *v < *oldest_first) {
    out.lacks = true;
    out.versions = mine + ": " + s(newest.name) + " first appears in " + s(oldest.first);
    return out;
  }
  for (const Knob* k : entries) {
    const auto first = release(k->first), last = release(k->last);
    if ((!first || *first <= *v) && (!last || *v <= *last)) {
      out.entry = k;
      out.versions = "for " + mine + ": " + (k->first.empty() && k->last.empty() ? "judged " : "holds for ") + held(*k);
      return out;
    }
  }
  // Newer than the newest release read, or between two entries' ranges: the nearest older entry.
  for (const Knob* k : entries)
    if (const auto first = release(k->first); !first || *first <= *v) out.entry = k;
  out.versions = "for " + mine + ": newer than the releases read, taken as unchanged from " + held(*out.entry);
  return out;
}

std::string knob_table_markdown() {
  auto cell = [](std::string_view text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string t =
      "| knob | engine | name (kind) | values | releases | conditions | what | source (repo, ref, files) | verified |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const Knob& k : knobs()) {
    t += "| `" + s(k.id) + "` | " + s(k.engine) + " | `" + cell(k.name) + "` (" + kind_name(k.kind) + ") | " +
         cell(k.values) + " | " + release_range(k) + " | " + cell(k.conditions) + " | " + cell(k.what) + " | " +
         s(k.source.repo) + " " + cell(k.source.ref) + ": " + cell(k.source.files) + " | " +
         (k.verified ? "yes" + (k.caveat.empty() ? std::string() : ": " + cell(k.caveat)) : "**no**: " + cell(k.caveat)) + " |\n";
  }
  return t;
}

}  // namespace arbench
