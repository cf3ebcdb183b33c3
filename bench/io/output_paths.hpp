// The files a command will write, checked before it does any work (README.md): a sweep of an
// hour must not end in "cannot write" and lose its results, nor replace one of its own outputs or
// inputs.
#pragma once

#include <string>
#include <vector>

namespace arbench {

// One path the user typed, and the option (or positional) that named it.
struct NamedPath {
  std::string option;  // "--out", "RESULT"
  std::string path;
};

// What is wrong with `path` as a file to write, judged from its text and what is there now
// (no file is created): empty, a folder, a device or pipe. Empty when nothing is.
std::string output_path_problem(const std::string& path);

// Throws UsageError naming the option, the path and what to do when an output (those with an
// empty path are not given and skipped) has an output_path_problem, lies in a folder that does
// not exist or cannot be written (a probe file is created and removed), names the same file as
// another output, or names one of `inputs` (which the command would then overwrite).
void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs = {});

}  // namespace arbench
