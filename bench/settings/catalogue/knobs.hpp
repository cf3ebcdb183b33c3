// The knob catalogue: every engine and NCCL knob `arbench settings` prints, as data, one entry per
// knob and version range: its name and kind, the values it takes, the releases it holds for, the
// conditions it needs, what it does, and the source it was read in (repository, tag or commit,
// file) with whether that read is verified. The engine rules (engines*.cpp) decide from the entry
// that holds for the user's versions (StackVersions); docs/engine-settings.md's knob table is
// generated from it (knob_table_markdown; tests/host/settings checks they agree). Adding a
// release's change is a new entry here plus a golden test.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "settings/catalogue/stack_versions.hpp"

namespace arbench {

enum class KnobKind { env_var, flag, config_key, api_argument, library_behaviour };
const char* kind_name(KnobKind k);  // "env var", "flag", "config key", "API argument", "behaviour"

// A size rule of an entry: at `world` GPUs (and capability `cc` as 90, 100; 0: any) the engine
// uses the path at sizes <= small_max (0: none) and >= large_min (0: none).
struct SizeRule {
  int cc = 0;
  int world = 0;
  std::uint64_t small_max = 0, large_min = 0;
};

struct KnobSource {
  std::string_view repo = {};     // "vllm-project/vllm"
  std::string_view ref = {};      // what was read, as printed: "v2.29.2-1", "index commit 00d618aab604", "PR #29646"
  std::string_view files = {};    // the files (or pages) read there
  std::string_view release = {};  // which of those are releases (tags, versioned docs): "v2.27.7-1", "docs v0.12.0";
                                  // empty: only commits or PRs matched to no release
};

// One release boundary as data (scripts/check_catalogue.py proves it against a local clone of
// `repo`): `pattern` (a Python regular expression, multiline) matches `path` at tag `first_tag` and
// does not at `prev_tag`, the newest tag of the release before (a file absent there counts as no
// match). An empty `prev_tag` claims no boundary: the pattern only has to match at `first_tag` (the
// fact the entry rests on, for an entry that holds for every release read). Each field is one string
// literal in the catalogue's source, so that the checker reads it without a C++ parser.
struct Boundary {
  std::string_view repo = {};       // "NVIDIA/nccl"
  std::string_view first_tag = {};  // "v2.27.5-1": the first tag that has it
  std::string_view prev_tag = {};   // "v2.27.3-1": the newest tag before that lacks it ("": presence only)
  std::string_view path = {};       // "ext-tuner/example/plugin.c"
  std::string_view pattern = {};    // R"(getenv\("NCCL_TUNER_CONFIG_FILE"\))"
};

// What the engine does when the knob is not set, in this entry's releases.
enum class KnobDefault { not_stated, off, on, unknown };

// What an entry says where no release it was read in holds the fact (the caveat carries it).
inline constexpr std::string_view kNotInRelease = "not in a release we could find";

struct Knob {
  std::string_view id = {};       // "vllm.nccl_symm": several entries share an id, one per version range
  std::string_view engine = {};   // "vLLM"
  std::string_view package = {};  // the StackVersions key: "vllm", "sglang", "tensorrt_llm", "flashinfer", "nccl"
  std::string_view name = {};     // "VLLM_USE_NCCL_SYMM_MEM"
  KnobKind kind = KnobKind::env_var;
  std::string_view values = {};   // "0 | 1"
  std::string_view first = {};    // first release it holds for ("": every release read)
  std::string_view last = {};     // last release known to hold ("": up to the newest read)
  std::string_view conditions = {};  // capability, NVLink/PCIe, GPU count, NCCL version, in words
  std::string_view what = {};        // what it does in these releases
  KnobSource source = {};
  bool verified = false;     // name and behaviour read in that source, and its release range known
  std::string_view caveat = {};   // what is not verified (empty when nothing)
  std::vector<SizeRule> sizes = {};
  bool needs_nvlink = false;  // the path runs only where every GPU pair is NVLink-connected
  // The newest release read that lacks the knob: that release and older ones are judged as lacking
  // it; with `first` also set, the releases between the two were not read, and are "unknown".
  std::string_view absent_through = {};
  std::string_view paste = {};  // what to paste to switch it on in these releases ("{mib}": the measured MiB)
  std::uint64_t oneshot_max_tokens = 0;  // a rule by token count (one-shot up to this many); 0: none
  // The evidence (checked by scripts/check_catalogue.py against clones), or, for a repository that
  // could not be cloned here, the versioned docs page the entry rests on; every entry has one.
  std::vector<Boundary> evidence = {};
  std::string_view docs_page = {};
  KnobDefault default_value = KnobDefault::not_stated;
};

// Whether the entry names a release it holds for (a release range or a release read), or else
// carries kNotInRelease in its caveat: a catalogue test fails an entry with neither.
bool has_release(const Knob& k);
bool says_not_in_release(const Knob& k);

// Every entry, grouped by id, each id's entries oldest release first.
const std::vector<Knob>& knobs();
// The newest entry of `id`; throws std::out_of_range for an unknown id (a programming error).
const Knob& knob(std::string_view id);

// The entry of `id` for the versions the user runs, and the words saying which versions the line
// holds for. `fallback_nccl`: the NCCL to judge NCCL-side entries by when none was given (the
// measurement's), named as such.
struct KnobFor {
  const Knob* entry = nullptr;  // the newest entry when `lacks`
  bool lacks = false;           // the given release is older than the knob's first, or no newer than absent_through
  bool unknown = false;         // between absent_through and first: releases not read (entry: the oldest)
  bool given = false;           // the user gave this package's version
  std::string_view first;       // the oldest entry's first release ("": none known)
  std::string mine;             // the version judged for, and whose: "vLLM 0.18.0 (given)"; "" when none
  std::string versions;         // "vLLM 0.18.0 (given): ..." / "checked against ..."
};
KnobFor knob_for(std::string_view id, const StackVersions& stack, const std::optional<Version>& fallback_nccl);

// "0.17.0 and later", "0.11.0 to 0.16.0", "every release read".
std::string release_range(const Knob& k);

// The knob table of docs/engine-settings.md, generated from the catalogue (markdown, one row per entry).
std::string knob_table_markdown();

}  // namespace arbench
