// Options and positionals that name files (README.md): inputs are read and recognised before any
// work (bench/io/input_file.hpp), outputs are checked for what can be told from the path alone
// when parsing (bench/io/output_paths.hpp; the command checks the folder and clashes between
// outputs before it starts). --help shows FILE for an input, OUTFILE for an output, DIR for a folder.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace arbench::cli {

// `check(path)` reads the file and throws UsageError when it is not what the command expects
// (read_json_input and the command's own loader); it runs when the option is parsed.
using FileCheck = std::function<void(const std::string& path)>;

// An input file (an option, or a positional when `name` has no dashes).
CLI::Option* input_file(CLI::App& app, const std::string& name, std::string& target, const std::string& description,
                        FileCheck check);

// A file the command writes (atomically).
CLI::Option* output_file(CLI::App& app, const std::string& name, std::string& target, const std::string& description);

// Shared libraries to load, one per occurrence ("--nccl-lib A --nccl-lib new=B"; a path may hold
// commas), each "[NAME=]PATH" (arbench/core/nccl_library_name.hpp) checked when parsed: a NAME that
// cannot be a label, a PATH that is missing, a folder or no ELF shared object, a NAME or PATH given
// twice. What the library is (NCCL? which version?) the command checks by loading it. --help
// shows LIBRARY.
CLI::Option* library_files(CLI::App& app, const std::string& name, std::vector<std::string>& target,
                           const std::string& description);

// A folder the command reads.
CLI::Option* input_dir(CLI::App& app, const std::string& name, std::string& target, const std::string& description);

}  // namespace arbench::cli
