// Releases known to hang, crash or crawl on PCIe boxes, as data: one entry per report, each with
// the releases it affects, what happens, on what hardware, the fix, and the source it was read in
// (repository, issue or release, what was read) with whether that read is verified, the same
// discipline as the knob catalogue (settings/catalogue/knobs.hpp). `arbench doctor` matches the
// entries against the versions installed; docs/doctor.md's table is generated from them
// (known_bad_markdown; tests/host/doctor checks they agree).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "doctor/check.hpp"
#include "settings/catalogue/stack_versions.hpp"

namespace arbench::doctor {

struct KnownBadSource {
  std::string_view repo = {};  // "NVIDIA/nccl"
  std::string_view ref = {};   // "issue #2418"
  std::string_view read = {};  // what was read there
};

struct KnownBad {
  std::string_view id = {};       // "nccl.ima_512k"
  std::string_view package = {};  // "nccl", "driver", or a StackVersions engine key ("vllm", ...)
  std::string_view first = {}, last = {};  // the releases affected, both inclusive
  std::string_view only = {};  // when set: exactly these releases ("2.26.5,2.27.7"), not the range between
  std::string_view hardware = {};  // where it was seen
  std::string_view what = {};      // what happens
  std::string_view fix = {};
  Verdict verdict = Verdict::may_hang;  // what a match means when verified
  KnownBadSource source = {};
  bool verified = false;  // the report and its release range read in the source
  std::string_view caveat = {};
};

const std::vector<KnownBad>& known_bad();

// Whether `v` lies in the entry's releases.
bool affects(const KnownBad& k, const Version& v);

// "2.26.2", "2.26.5 to 2.29.2".
std::string releases(const KnownBad& k);

// docs/doctor.md's table of entries (markdown, one row per entry).
std::string known_bad_markdown();

}  // namespace arbench::doctor
