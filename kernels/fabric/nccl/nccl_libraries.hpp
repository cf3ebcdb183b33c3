// The NCCL-API libraries measured beside the default one (`arbench run --nccl-lib [NAME=]PATH`,
// docs/variants.md "NCCL builds side by side"): each loaded through its own handle
// (load_nccl_library), with its own communicators (the fabric of provider `nccl@<label>`) and its
// own variants (`nccl@<label>` and its configurations from NCCL 2.14, `nccl-symm@<label>` where the
// library has symmetric memory: nccl_features.hpp; kernels/nccl/nccl_allreduce.hpp). The default
// library (ARBENCH_NCCL_LIBRARY, else libnccl.so.2: NcclApi::get) is loaded first, because a copy
// loaded before it would answer for its bare name (the loader matches a bare name by SONAME).
//
// What is refused, before any work:
//   exit 2 (UsageError: the path names the wrong thing) — a missing file, a folder, a file that is
//     not an ELF shared object (a text file), a library without ncclGetVersion (not NCCL), one
//     lacking an entry point every NCCL from 2.14 has, an NCCL older than 2.14 (the oldest arbench
//     drives: nccl_features.hpp), the default library's own
//     file again or a file named twice (one object: nothing to compare), two libraries with one
//     label (a NAME given twice, or two unnamed libraries of one version, or an unnamed one of the
//     default's version: name them);
//   exit 3 (EnvironmentError: the machine) — an ELF file the loader cannot load (a dependency not
//     on the loader path, another architecture): dlopen's words are quoted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arbench/core/nccl_library_name.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"

namespace arbench {

struct NcclLibrary {
  NcclApi api;           // api.label: how its variants are labelled (`nccl@<label>`)
  bool named = false;    // the label is the NAME given, not the version
  std::uint64_t size_bytes = 0;
};

// Loads and checks `specs` (the rules above; the first problem is thrown, naming the value as
// typed and what to do), and makes them the process's side-by-side libraries (find_nccl_library).
// A library once loaded stays loaded: the same spec again gives the same NcclLibrary. No specs:
// none (nothing is loaded, not even the default).
std::vector<const NcclLibrary*> load_nccl_libraries(const std::vector<NcclLibrarySpec>& specs);

// The side-by-side library labelled `label` by the last load_nccl_libraries; nullptr when none.
const NcclLibrary* find_nccl_library(const std::string& label);
// Every library of the last load_nccl_libraries, in the order given (empty before any).
std::vector<const NcclLibrary*> nccl_libraries();

// What `lib` cannot run, one line each, for `arbench list` and the banner: its nccl-symm when it
// lacks symmetric memory, its channel configurations before NCCL 2.28 (nccl_features.hpp).
std::vector<std::string> nccl_library_limits(const NcclLibrary& lib);

// The NCCL-API library a fabric's provider names: "nccl" or "" -> the default (NcclApi::get, which
// throws EnvironmentError when it is missing); "nccl@<label>" -> that library (UsageError when
// none has the label).
const NcclApi& nccl_api_of_provider(const std::string& provider);

}  // namespace arbench
