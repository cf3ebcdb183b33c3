// The versions of the software a user's engine runs on: the engines (vllm, sglang, tensorrt_llm,
// flashinfer, torch) and the NCCL the engine loads. `arbench settings` judges each knob for these
// versions (the knob catalogue holds each knob's version range); where a version is not known the
// output says which versions the line was checked against instead.
// Filled from `--engine NAME=VER,...`, `--nccl VER` or `--python PATH` (bench/cmd_settings.cpp).
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>

namespace arbench {

// A release number: "2.28.9", "0.11.0", "1.0.0rc3" (the pre-release tail is kept as text and
// ignored in comparisons: a knob that exists in 1.0.0 is taken to exist in 1.0.0rc3).
struct Version {
  int major = 0, minor = 0, patch = 0;
  std::string tail;  // "rc3", ".post1", "+cu128": kept for display only

  std::string text() const;  // "2.28.9" (+ tail)
  friend bool operator==(const Version& a, const Version& b) {
    return a.major == b.major && a.minor == b.minor && a.patch == b.patch;
  }
  friend std::strong_ordering operator<=>(const Version& a, const Version& b) {
    if (auto c = a.major <=> b.major; c != 0) return c;
    if (auto c = a.minor <=> b.minor; c != 0) return c;
    return a.patch <=> b.patch;
  }
};

// "2.28.9" / "0.11" / "1.0.0rc3" / "2.4.1+cu128"; nullopt for anything else ("", "abc", "2..1").
std::optional<Version> parse_version(const std::string& s);

struct StackVersions {
  std::map<std::string, Version> engines;  // key: "vllm", "sglang", "tensorrt_llm", "flashinfer", "torch"
  std::optional<Version> nccl;             // the NCCL the engine loads (torch's, or --nccl)
  std::string source;                      // "--engine/--nccl", "python /opt/venv/bin/python"; "" when none given

  bool empty() const { return engines.empty() && !nccl; }
  std::optional<Version> engine(const std::string& name) const {
    auto it = engines.find(name);
    return it == engines.end() ? std::nullopt : std::optional<Version>(it->second);
  }
};

// The names --engine takes and --python reports: the keys of StackVersions::engines.
inline constexpr const char* kStackEngines[] = {"vllm", "sglang", "tensorrt_llm", "flashinfer", "torch"};

// A release as pip writes it: parse_version, and a tail that is a PEP 440 pre/post/dev release or
// a local label ("rc3", "a1", ".post1", ".dev0", "+cu128"; "e300" is not); nullopt otherwise.
std::optional<Version> parse_release(const std::string& s);

// One item of `--engine NAME=VERSION,...`: empty and name/version filled, or why it is not one.
std::string parse_engine_item(const std::string& item, std::string& name, Version& version);

// `--nccl X.Y[.Z]`: digits only (NCCL has no pre-releases), major at least 2.
std::string nccl_version_problem(const std::string& text);

}  // namespace arbench
