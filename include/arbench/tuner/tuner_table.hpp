// The NCCL tuner table: which NCCL algorithm, protocol and channel count an all-reduce of a given
// size should use on a given number of GPUs, as arbench measured it. `arbench settings` writes it
// (bench/settings/); libarbench-nccl-tuner.so (kernels/nccl/tuner/) reads it inside NCCL. Both
// compile this header, so the writer and the reader cannot disagree on the format.
//
// Format version 1, one statement per line (docs/engine-settings.md has the full description):
//
//   # a comment (blank lines and lines starting with '#' are ignored anywhere)
//   arbench-nccl-tuner-table 1                 first statement: what the file is, and its version
//   source <text>                              the result it was derived from (not checked)
//   fingerprint <text>                         that result's arbench fingerprint (not checked)
//   nccl <major>.<minor>                       NCCL of the measurement: its major must be the loaded one's
//   machine cpu <text>                         /proc/cpuinfo's first "model name": checked
//   machine gpu <text>                         a GPU model of the measurement, one line each: checked
//   machine cuda_driver <major>.<minor>        the CUDA driver's version: checked
//   allreduce nranks=8 nnodes=1 min_bytes=0 max_bytes=65536 algo=ring proto=ll channels=4
//
// A rule applies to an all-reduce on `nranks` ranks over `nnodes` nodes whose size in bytes is in
// min_bytes..max_bytes (both inclusive); rules of one (nranks, nnodes) never overlap. `channels`
// 0 keeps NCCL's channel count, 1..64 overrides it. Algorithm and protocol names are NCCL's
// (NCCL_ALGO / NCCL_PROTO spelling, any case). Anything else is an error naming the line: the
// plugin then applies nothing (unlike NCCL's example plugin, which maps unknown names to
// ring/simple without a word).
//
// The parser and the writer are in tuner_table_text.hpp. Standard C++ only, no exceptions thrown
// on purpose (std::bad_alloc aside): the plugin runs inside other programs and must never fail them.
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbench::tuner {

inline constexpr std::string_view kMagic = "arbench-nccl-tuner-table";
inline constexpr int kVersion = 1;
// The plugin reads the table named by this variable ...
inline constexpr const char* kTableEnv = "ARBENCH_NCCL_TUNER_TABLE";
// ... or, without a table, runs every all-reduce on this many channels (how `arbench run` measures
// the forced configurations `nccl[<algo>/<proto>/ch:<N>]`).
inline constexpr const char* kChannelsEnv = "ARBENCH_NCCL_TUNER_CHANNELS";
inline constexpr int kMaxChannels = 64;             // NCCL's MAXCHANNELS (2.28.9)
inline constexpr std::size_t kMaxFileBytes = 1 << 20;  // a larger file is refused, not read

// NCCL's indices into the cost table (src/include/plugin/nccl_tuner.h, NCCL v2.28.9-1).
inline constexpr int kNumAlgorithms = 7;
inline constexpr int kNumProtocols = 3;
inline constexpr const char* kAlgoNames[kNumAlgorithms] = {"tree", "ring", "collnetdirect", "collnetchain",
                                                           "nvls", "nvlstree", "pat"};
inline constexpr const char* kProtoNames[kNumProtocols] = {"ll", "ll128", "simple"};
inline constexpr int kAlgoTree = 0, kAlgoRing = 1;
inline constexpr int kProtoLL = 0, kProtoLL128 = 1, kProtoSimple = 2;

struct Rule {
  int nranks = 0, nnodes = 1;
  std::uint64_t min_bytes = 0, max_bytes = 0;  // inclusive
  int algo = kAlgoRing, proto = kProtoSimple;  // NCCL indices
  int channels = 0;                            // 0: NCCL's
  std::string note;                            // written as a comment line above the rule
};

// What the plugin compares with the machine it runs on (kernels/nccl/tuner/machine_probe.cpp).
struct Machine {
  std::string cpu;                // /proc/cpuinfo's first "model name"
  std::vector<std::string> gpus;  // GPU model names (CUDA's device name), each once
  std::string cuda_driver;        // "13.0"
};

struct Table {
  std::string source, fingerprint;
  int nccl_major = 0, nccl_minor = 0;
  Machine machine;
  std::vector<Rule> rules;
  std::vector<std::string> notes;  // comment lines written after the header
};

// ---- small helpers ----------------------------------------------------------------------------

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Index of an algorithm / protocol name (any case), or -1.
inline int algo_index(std::string_view name) {
  const std::string n = lower(name);
  for (int i = 0; i < kNumAlgorithms; ++i)
    if (n == kAlgoNames[i]) return i;
  return -1;
}
inline int proto_index(std::string_view name) {
  const std::string n = lower(name);
  for (int i = 0; i < kNumProtocols; ++i)
    if (n == kProtoNames[i]) return i;
  return -1;
}
inline const char* algo_name(int a) { return a >= 0 && a < kNumAlgorithms ? kAlgoNames[a] : "?"; }
inline const char* proto_name(int p) { return p >= 0 && p < kNumProtocols ? kProtoNames[p] : "?"; }

// A decimal number without sign, or nullopt (empty, other characters, overflow).
inline std::optional<std::uint64_t> parse_u64(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t d = std::uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

// "13.0" from cuDriverGetVersion's 13000 (the way arbench's provenance writes it).
inline std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// NCCL's version code (ncclGetVersion: 22809 for 2.28.9; 2.8 and older: 2804) as major, minor.
inline void nccl_major_minor(int code, int& major, int& minor) {
  if (code >= 20900) {
    major = code / 10000;
    minor = code % 10000 / 100;
  } else {
    major = code / 1000;
    minor = code % 1000 / 100;
  }
}

// The first "model name" of /proc/cpuinfo's text, as arbench's provenance records it (trailing
// blanks dropped); "unknown" without one (ARM's cpuinfo has none).
inline std::string cpu_model_from_cpuinfo(std::string_view text) {
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (line.substr(0, 10) != "model name") continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::size_t start = line.find_first_not_of(' ', colon + 1), end = line.size();
    if (start == std::string_view::npos) return {};
    while (end > start && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r')) --end;
    return std::string(line.substr(start, end - start));
  }
  return "unknown";
}

// The rule covering an all-reduce of `bytes` on (nranks, nnodes), or nullptr.
inline const Rule* find_rule(const std::vector<Rule>& rules, int nranks, int nnodes, std::uint64_t bytes) {
  for (const Rule& r : rules)
    if (r.nranks == nranks && r.nnodes == nnodes && r.min_bytes <= bytes && bytes <= r.max_bytes) return &r;
  return nullptr;
}

// `s` without leading and trailing blanks (a table's statements are read trimmed, so facts with a
// trailing blank, as some CPUs' model names have, must compare trimmed).
inline std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

// Why the table must not be used on `here` (empty when it may): the first fact that differs.
inline std::string machine_mismatch(const Machine& table_facts, const Machine& here_facts) {
  Machine table = table_facts, here = here_facts;
  for (Machine* m : {&table, &here}) {
    m->cpu = trimmed(m->cpu);
    m->cuda_driver = trimmed(m->cuda_driver);
    for (std::string& g : m->gpus) g = trimmed(g);
  }
  if (table.cpu != here.cpu) return "CPU differs: the table was measured on '" + table.cpu + "', this is '" + here.cpu + "'";
  if (table.cuda_driver != here.cuda_driver)
    return "CUDA driver differs: the table was measured with " + table.cuda_driver + ", this is " + here.cuda_driver;
  if (here.gpus.empty()) return "no GPU is visible to compare with the table's";
  for (const std::string& g : here.gpus) {
    bool known = false;
    for (const std::string& t : table.gpus) known = known || t == g;
    if (!known) {
      std::string list;
      for (const std::string& t : table.gpus) list += (list.empty() ? "'" : ", '") + t + "'";
      return "GPU '" + g + "' is not a model the table was measured on (" + list + ")";
    }
  }
  return {};
}

// The version rule: a table measured under NCCL X.Y, loaded by NCCL `code` (ncclGetVersion).
// Another major: refused (`refuse` says why). Another minor: applied, and `warn` is the one WARN
// line saying so — an engine loads the NCCL of its own wheel (nvidia-nccl-cu1x under torch),
// often another minor than the one arbench measured with, and the table's algorithm and protocol
// indices keep their meaning across minors (NCCL_ALGO_* / NCCL_PROTO_* are the same in
// src/include/plugin/nccl_tuner.h of v2.28.9-1, v2.29.7-1 and v2.30.7-1). A cost table of another
// shape is refused by the plugin call by call (numAlgo / numProto as passed). Same minor: both empty.
struct NcclVersionCheck {
  std::string refuse;  // non-empty: do not apply the table
  std::string warn;    // non-empty: apply it, and log this once at WARN
};
inline NcclVersionCheck check_nccl_version(int table_major, int table_minor, int code) {
  int major = 0, minor = 0;
  nccl_major_minor(code, major, minor);
  const std::string measured = std::to_string(table_major) + "." + std::to_string(table_minor);
  const std::string loaded = std::to_string(major) + "." + std::to_string(minor);
  NcclVersionCheck c;
  if (major != table_major)
    c.refuse = "it was measured with NCCL " + measured + ", this is NCCL " + loaded +
               ", another major version (measure with this NCCL: ARBENCH_NCCL_LIBRARY=<its libnccl.so.2> arbench run, "
               "then arbench settings)";
  else if (minor != table_minor)
    c.warn = "table measured with NCCL " + measured + ", applied under NCCL " + loaded +
             " (another minor version: the choices may no longer be the fastest; measure with this NCCL to be sure: "
             "ARBENCH_NCCL_LIBRARY=<its libnccl.so.2> arbench run)";
  return c;
}

// The largest channel count any rule for (nranks, nnodes) sets (0: none sets one).
inline int max_channels(const std::vector<Rule>& rules, int nranks, int nnodes) {
  int m = 0;
  for (const Rule& r : rules)
    if (r.nranks == nranks && r.nnodes == nnodes && r.channels > m) m = r.channels;
  return m;
}

}  // namespace arbench::tuner
