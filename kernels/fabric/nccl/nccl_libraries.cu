// The side-by-side NCCL libraries: loaded, checked and kept for the process; see nccl_libraries.hpp.
// Host code only (a .cu so that it lives beside the loader in arbench_kernels).
#include "kernels/fabric/nccl/nccl_libraries.hpp"

#include <sys/stat.h>

#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"

namespace arbench {
namespace {

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};

std::optional<FileId> file_id(const std::string& path) {
  struct stat st{};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

std::string typed(const NcclLibrarySpec& s) { return "--nccl-lib " + (s.name.empty() ? s.path : s.name + "=" + s.path); }

// What the path names, before the loader sees it: a file that starts like a shared object.
void check_file(const NcclLibrarySpec& s) {
  if (const std::string why = library_file_problem(s.path); !why.empty()) throw UsageError(typed(s) + ": " + why);
}

// Loads `s` or says why it cannot be measured (the exit codes of nccl_libraries.hpp).
NcclApi load_checked(const NcclLibrarySpec& s) {
  const std::string what = typed(s) + ": ";
  NcclLoad l = load_nccl_library(s.path);
  switch (l.problem) {
    case NcclLoad::Problem::none: break;
    case NcclLoad::Problem::not_loaded:
      throw EnvironmentError(what + "the loader cannot load it (" + l.detail +
                             "): a library it needs is not on the loader path (LD_LIBRARY_PATH), or it was built for "
                             "another machine; fix its environment, or name another build");
    case NcclLoad::Problem::not_nccl:
      throw UsageError(what + "not an NCCL library: it has no " + l.detail +
                       "; name an NCCL library (libnccl.so.2) of version 2.14 or newer");
    case NcclLoad::Problem::lacks_entry:
      throw UsageError(what + "an NCCL-API library without " + l.detail +
                       ", which arbench calls (every NCCL from 2.14 has it); name an NCCL 2.14 or newer");
    case NcclLoad::Problem::too_old:
      throw UsageError(what + l.detail + "; name an NCCL 2.14 or newer");
  }
  return std::move(l.api);
}

struct Store {
  std::mutex m;
  std::deque<NcclLibrary> kept;  // every library loaded, never dropped (their handles stay open)
  std::vector<const NcclLibrary*> current;  // the last load_nccl_libraries, in order
};

Store& store() {
  static Store s;
  return s;
}

}  // namespace

std::vector<const NcclLibrary*> load_nccl_libraries(const std::vector<NcclLibrarySpec>& specs) {
  Store& st = store();
  std::lock_guard<std::mutex> lock(st.m);
  st.current.clear();
  if (specs.empty()) return {};  // and the default stays unloaded until a case needs it
  // The default first: loaded after a copy, its bare name would find the copy (nccl_libraries.hpp).
  const bool have_default = NcclApi::available();
  const NcclApi* def = have_default ? &NcclApi::get() : nullptr;
  const std::optional<FileId> def_id = def ? file_id(def->file.empty() ? def->path : def->file) : std::nullopt;
  std::vector<const NcclLibrary*> out;
  std::vector<std::optional<FileId>> ids;
  std::map<std::string, std::size_t> labels;  // label -> index into specs
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const NcclLibrarySpec& s = specs[i];
    const std::string what = typed(s) + ": ";
    if (!s.name.empty())
      if (const std::string bad = nccl_label_problem(s.name); !bad.empty()) throw UsageError(what + "NAME " + bad);
    check_file(s);
    const std::optional<FileId> id = file_id(s.path);
    if (id && def_id && *id == *def_id)
      throw UsageError(what + "the default library's own file (" + def->file + ", NCCL " +
                       nccl_version_text(def->version) +
                       ", measured as `nccl`): the loader hands back the same object; name another build, or make "
                       "this one the default with ARBENCH_NCCL_LIBRARY");
    for (std::size_t k = 0; k < i; ++k)
      if (id && ids[k] && *id == *ids[k])
        throw UsageError(what + "the same file as " + typed(specs[k]) +
                         ": the loader hands back one object for both, nothing to compare; name each file once");
    ids.push_back(id);
    const NcclLibrary* lib = nullptr;
    for (const NcclLibrary& have : st.kept)
      if (have.named == !s.name.empty() && (s.name.empty() || have.api.label == s.name) && have.api.path == s.path &&
          file_id(have.api.path) == id)
        lib = &have;
    if (lib == nullptr) {
      NcclLibrary fresh;
      fresh.api = load_checked(s);
      fresh.named = !s.name.empty();
      fresh.api.label = fresh.named ? s.name : nccl_version_text(fresh.api.version);
      std::error_code ec;
      fresh.size_bytes = std::filesystem::file_size(s.path, ec);
      st.kept.push_back(std::move(fresh));
      lib = &st.kept.back();
    }
    const std::string& label = lib->api.label;
    if (const auto seen = labels.find(label); seen != labels.end()) {
      const NcclLibrarySpec& other = specs[seen->second];
      if (s.name.empty() && other.name.empty())
        throw UsageError(what + "reports NCCL " + label + ", as " + typed(other) +
                         " does: name them to measure both (--nccl-lib old=PATH --nccl-lib new=PATH)");
      throw UsageError(what + "the name " + label + " is taken by " + typed(other) + "; give each library its own NAME");
    }
    if (!lib->named && def && lib->api.version == def->version)
      throw UsageError(what + "reports NCCL " + label + ", the default library's version (" + def->file +
                       ", measured as `nccl`): name it to measure both (--nccl-lib NAME=" + s.path + "), or drop it");
    labels.emplace(label, i);
    out.push_back(lib);
  }
  st.current = out;
  return out;
}

const NcclLibrary* find_nccl_library(const std::string& label) {
  Store& st = store();
  std::lock_guard<std::mutex> lock(st.m);
  for (const NcclLibrary* lib : st.current)
    if (lib->api.label == label) return lib;
  return nullptr;
}

std::vector<const NcclLibrary*> nccl_libraries() {
  Store& st = store();
  std::lock_guard<std::mutex> lock(st.m);
  return st.current;
}

std::vector<std::string> nccl_library_limits(const NcclLibrary& lib) {
  std::vector<std::string> out;
  if (const std::string why = nccl_symmetric_missing(lib.api.version, nccl_symmetric_entries(lib.api)); !why.empty())
    out.push_back("no " + with_library("nccl-symm", lib.api.label) + ": " + why);
  if (const std::string why = nccl_channels_missing(lib.api.version); !why.empty())
    out.push_back(with_library("nccl", lib.api.label) + "[<algo>/<proto>/ch:N] skipped: " + why);
  return out;
}

const NcclApi& nccl_api_of_provider(const std::string& provider) {
  const LibraryVariant lv = split_library(provider);
  if (lv.library.empty()) return NcclApi::get();
  const NcclLibrary* lib = find_nccl_library(lv.library);
  if (lib == nullptr)
    throw UsageError("no NCCL library labelled '" + lv.library + "' was loaded (`arbench run --nccl-lib`)");
  return lib->api;
}

}  // namespace arbench
