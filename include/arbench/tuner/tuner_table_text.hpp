// The tuner table as text: the parser the plugin applies a table with and the writer
// `arbench settings` produces it with (the format is described in tuner_table.hpp).
#pragma once

#include <string>
#include <string_view>

#include "arbench/tuner/tuner_table.hpp"

namespace arbench::tuner {

// ---- the parser -------------------------------------------------------------------------------

namespace detail {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Splits off the first space-separated word of `s` (which keeps the rest, trimmed).
inline std::string_view next_word(std::string_view& s) {
  s = trim(s);
  const std::size_t end = s.find_first_of(" \t");
  const std::string_view w = s.substr(0, end);
  s = end == std::string_view::npos ? std::string_view{} : trim(s.substr(end));
  return w;
}

inline std::string quoted(std::string_view s) { return "'" + std::string(s.substr(0, 60)) + (s.size() > 60 ? "...'" : "'"); }

inline std::string parse_rule(std::string_view rest, Rule& r) {
  static constexpr const char* kKeys[] = {"nranks", "nnodes", "min_bytes", "max_bytes", "algo", "proto", "channels"};
  bool seen[7] = {};
  while (!rest.empty()) {
    const std::string_view item = next_word(rest);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return "expected key=value, found " + quoted(item);
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    int k = -1;
    for (int i = 0; i < 7; ++i)
      if (key == kKeys[i]) k = i;
    if (k < 0) return "unknown key " + quoted(key) + " (keys: nranks nnodes min_bytes max_bytes algo proto channels)";
    if (seen[k]) return "key '" + std::string(key) + "' given twice";
    seen[k] = true;
    if (k == 4 || k == 5) {
      const int idx = k == 4 ? algo_index(value) : proto_index(value);
      if (idx < 0)
        return std::string(k == 4 ? "unknown algorithm " : "unknown protocol ") + quoted(value) +
               (k == 4 ? " (NCCL's: tree ring collnetdirect collnetchain nvls nvlstree pat)" : " (NCCL's: ll ll128 simple)");
      (k == 4 ? r.algo : r.proto) = idx;
      continue;
    }
    const std::optional<std::uint64_t> v = parse_u64(value);
    if (!v) return std::string(key) + "=" + std::string(value) + " is not a whole number";
    switch (k) {
      case 0:
        if (*v < 1 || *v > 1u << 20) return "nranks=" + std::string(value) + " is not a rank count (1 or more)";
        r.nranks = int(*v);
        break;
      case 1:
        if (*v < 1 || *v > 1u << 20) return "nnodes=" + std::string(value) + " is not a node count (1 or more)";
        r.nnodes = int(*v);
        break;
      case 2: r.min_bytes = *v; break;
      case 3: r.max_bytes = *v; break;
      default:
        if (*v > std::uint64_t(kMaxChannels))
          return "channels=" + std::string(value) + " is out of range (0 keeps NCCL's, 1.." + std::to_string(kMaxChannels) + ")";
        r.channels = int(*v);
    }
  }
  for (int i = 0; i < 7; ++i)
    if (!seen[i]) return std::string("missing ") + kKeys[i] + "=";
  if (r.min_bytes > r.max_bytes)
    return "min_bytes " + std::to_string(r.min_bytes) + " is above max_bytes " + std::to_string(r.max_bytes);
  if (r.nnodes > r.nranks) return "nnodes=" + std::to_string(r.nnodes) + " is more than nranks=" + std::to_string(r.nranks);
  return {};
}

inline std::string parse_version_pair(std::string_view text, int& major, int& minor) {
  const std::size_t dot = text.find('.');
  const auto a = parse_u64(text.substr(0, dot));
  const auto b = dot == std::string_view::npos ? std::nullopt : parse_u64(text.substr(dot + 1));
  if (!a || !b || *a > 1000 || *b > 1000) return "expected <major>.<minor>, found " + quoted(text);
  major = int(*a);
  minor = int(*b);
  return {};
}

}  // namespace detail

// Parses `text` into `out`. Returns "" when it is a valid table, else what is wrong, starting
// with "line N: " where a line is at fault.
inline std::string parse_table(std::string_view text, Table& out) {
  out = Table{};
  if (text.size() > kMaxFileBytes) return "larger than " + std::to_string(kMaxFileBytes) + " bytes: not a tuner table";
  bool magic = false, nccl = false, cpu = false, driver = false, source = false, fingerprint = false;
  int line_no = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_no;
    const std::string at = "line " + std::to_string(line_no) + ": ";
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r')
        return at + "control character " + std::to_string(int(static_cast<unsigned char>(c))) + ": not a text table";
    line = detail::trim(line);
    if (line.empty() || line.front() == '#') continue;
    std::string_view rest = line;
    const std::string_view word = detail::next_word(rest);
    if (!magic) {
      if (word != kMagic)
        return at + "expected '" + std::string(kMagic) + " " + std::to_string(kVersion) + "' first, found " + detail::quoted(line);
      if (rest != std::to_string(kVersion))
        return at + "format version " + detail::quoted(rest) + "; this reader knows version " + std::to_string(kVersion);
      magic = true;
      continue;
    }
    if (word == "source" || word == "fingerprint") {
      bool& seen = word == "source" ? source : fingerprint;
      if (seen) return at + "'" + std::string(word) + "' given twice";
      seen = true;
      (word == "source" ? out.source : out.fingerprint) = std::string(rest);
    } else if (word == "nccl") {
      if (nccl) return at + "'nccl' given twice";
      nccl = true;
      if (std::string e = detail::parse_version_pair(rest, out.nccl_major, out.nccl_minor); !e.empty()) return at + "nccl: " + e;
    } else if (word == "machine") {
      const std::string_view what = detail::next_word(rest);
      if (rest.empty()) return at + "machine " + std::string(what) + " has no value";
      if (what == "cpu") {
        if (cpu) return at + "'machine cpu' given twice";
        cpu = true;
        out.machine.cpu = std::string(rest);
      } else if (what == "gpu") {
        out.machine.gpus.emplace_back(rest);
      } else if (what == "cuda_driver") {
        if (driver) return at + "'machine cuda_driver' given twice";
        driver = true;
        int a = 0, b = 0;
        if (std::string e = detail::parse_version_pair(rest, a, b); !e.empty()) return at + "machine cuda_driver: " + e;
        out.machine.cuda_driver = std::string(rest);
      } else {
        return at + "unknown machine fact " + detail::quoted(what) + " (cpu, gpu, cuda_driver)";
      }
    } else if (word == "allreduce") {
      Rule r;
      if (std::string e = detail::parse_rule(rest, r); !e.empty()) return at + e;
      for (const Rule& o : out.rules)
        if (o.nranks == r.nranks && o.nnodes == r.nnodes && r.min_bytes <= o.max_bytes && o.min_bytes <= r.max_bytes)
          return at + "bytes " + std::to_string(r.min_bytes) + ".." + std::to_string(r.max_bytes) +
                 " overlap another rule's " + std::to_string(o.min_bytes) + ".." + std::to_string(o.max_bytes) +
                 " for nranks=" + std::to_string(r.nranks) + " nnodes=" + std::to_string(r.nnodes);
      out.rules.push_back(std::move(r));
    } else {
      return at + "unknown statement " + detail::quoted(word) +
             " (allreduce rules only; other collectives are left to NCCL)";
    }
  }
  if (!magic) return "empty: no '" + std::string(kMagic) + " " + std::to_string(kVersion) + "' line";
  if (!nccl) return "no 'nccl <major>.<minor>' line";
  if (!cpu) return "no 'machine cpu' line";
  if (out.machine.gpus.empty()) return "no 'machine gpu' line";
  if (!driver) return "no 'machine cuda_driver' line";
  return {};
}

// ---- the writer -------------------------------------------------------------------------------

// `s` on one line (a newline in a source path or a note would end the statement early).
inline std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}

inline std::string format_rule(const Rule& r) {
  return "allreduce nranks=" + std::to_string(r.nranks) + " nnodes=" + std::to_string(r.nnodes) +
         " min_bytes=" + std::to_string(r.min_bytes) + " max_bytes=" + std::to_string(r.max_bytes) +
         " algo=" + algo_name(r.algo) + " proto=" + proto_name(r.proto) + " channels=" + std::to_string(r.channels);
}

// The table as text; parse_table(format_table(t)) gives back t (notes aside).
inline std::string format_table(const Table& t) {
  std::string s;
  s += "# arbench NCCL tuner table: the NCCL algorithm, protocol and channel count measured fastest for\n";
  s += "# all-reduce per GPU count and size. Load with NCCL_TUNER_PLUGIN=/path/to/libarbench-nccl-tuner.so\n";
  s += "# " + std::string(kTableEnv) + "=/path/to/this/file; sizes no rule covers stay NCCL's choice.\n";
  s += std::string(kMagic) + " " + std::to_string(kVersion) + "\n";
  s += "source " + one_line(t.source) + "\n";
  s += "fingerprint " + one_line(t.fingerprint) + "\n";
  s += "nccl " + std::to_string(t.nccl_major) + "." + std::to_string(t.nccl_minor) + "\n";
  s += "machine cpu " + one_line(t.machine.cpu) + "\n";
  for (const std::string& g : t.machine.gpus) s += "machine gpu " + one_line(g) + "\n";
  s += "machine cuda_driver " + one_line(t.machine.cuda_driver) + "\n";
  for (const std::string& n : t.notes) s += "# " + one_line(n) + "\n";
  for (const Rule& r : t.rules) {
    if (!r.note.empty()) s += "# " + one_line(r.note) + "\n";
    s += format_rule(r) + "\n";
  }
  return s;
}

}  // namespace arbench::tuner
