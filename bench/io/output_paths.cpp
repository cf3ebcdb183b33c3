#include "io/output_paths.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

namespace fs = std::filesystem;

// The file a path names, for comparing two paths: the folder resolved (symbolic links, `..`),
// the name kept. Two spellings of one file compare equal.
fs::path identity(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  const fs::path folder = fs::weakly_canonical(p.parent_path(), ec);
  fs::path name = p.filename();
  if (fs::is_symlink(p, ec)) return fs::weakly_canonical(p, ec);
  return folder / name;
}

std::string folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

std::string output_path_problem(const std::string& path) {
  if (path.empty()) return "an empty file name; give the file to write, e.g. results.json";
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st))
    return "a folder; give a file name, e.g. " + (fs::path(path) / "results.json").string();
  if (fs::exists(st) && !fs::is_regular_file(st))
    return "not a regular file (a device, a pipe or a socket): arbench writes a temporary file and renames it "
           "over the output; give a file name";
  if (path.back() == '/') return "ends with '/', a folder name; give a file name";
  return {};
}

void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& o = outputs[i];
    if (o.path.empty()) continue;
    const std::string what = o.option + " " + o.path + ": ";
    if (const std::string why = output_path_problem(o.path); !why.empty()) throw UsageError(what + why);
    const std::string folder = folder_of(o.path);
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) {
      // A file where the path needs a folder (--out file.json/r.json) is not a missing folder.
      for (fs::path up = folder; !up.empty(); up = up.parent_path()) {
        if (fs::exists(up, ec) && !fs::is_directory(up, ec))
          throw UsageError(what + up.string() + " is a file, not a folder; give a path whose folders exist");
        if (up == up.parent_path()) break;
      }
      throw UsageError(what + "the folder " + folder + " does not exist; create it (mkdir -p " + folder +
                       ") or write elsewhere");
    }
    // The atomic write creates its temporary file beside the output: probe that very thing.
    const std::string probe = o.path + ".arbench-probe." + std::to_string(::getpid());
    {
      std::ofstream f(probe);
      if (!f)
        throw UsageError(what + "cannot write in " + folder + " (" + std::strerror(errno) +
                         "); check its permissions or write elsewhere");
    }
    std::remove(probe.c_str());
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && identity(outputs[j].path) == identity(o.path))
        throw UsageError(outputs[j].option + " " + outputs[j].path + " and " + o.option + " " + o.path +
                         " name the same file: the second would replace the first; give each its own file");
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && identity(in.path) == identity(o.path))
        throw UsageError(what + "this is the " + in.option + " file this command reads; writing it would replace "
                         "its input: give another file name");
  }
}

}  // namespace arbench
