// The names of the NCCL-API libraries measured side by side (`arbench run --nccl-lib [NAME=]PATH`,
// docs/variants.md "NCCL builds side by side"). A library beside the default one has a label: the
// NAME given, else the version it reports ("2.29.2"). Its variants carry the label after the base
// name and before a configuration: `nccl@2.29.2`, `nccl-symm@2.29.2`, `nccl@2.29.2[ring/ll]`, so a
// case key reads `allreduce/nccl@2.29.2/bf16/gpus:8/bytes:65536`. The default library's variants
// keep their names (`nccl`, `nccl[ring/ll]`): no '@'.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace arbench {

inline constexpr std::size_t kMaxNcclLabel = 32;

// Empty when `label` can label a library (1 to 32 of A-Z a-z 0-9 . _ + -, starting with a letter
// or a digit); else why not, naming it.
std::string nccl_label_problem(std::string_view label);

// One --nccl-lib value: NAME=PATH, or PATH alone (labelled by the version the library reports).
struct NcclLibrarySpec {
  std::string name;  // empty: labelled by its version
  std::string path;
};

// "[NAME=]PATH" as typed: NAME=PATH when the text before the first '=' has no '/', else the whole
// text is the path (so /opt/a=b/libnccl.so.2 is a path). nullopt, and why in *why, for an empty
// path or a NAME that cannot be a label.
std::optional<NcclLibrarySpec> parse_nccl_library_spec(std::string_view text, std::string* why = nullptr);

// Empty when `path` names a file the loader could take for a shared library (a regular file that
// starts with the ELF magic); else what it is instead ("no such file", "a folder, ...", "not a shared
// library (no ELF header ...)"). What the file holds (NCCL? which version?) only loading tells.
std::string library_file_problem(const std::string& path);

// A variant name split into the name it has for the default library and the library's label:
// "nccl@2.29.2[ring/ll]" -> {"nccl[ring/ll]", "2.29.2"}; a name without '@' before its '[' ->
// {name, ""}.
struct LibraryVariant {
  std::string variant;
  std::string library;  // empty: the default library (or no NCCL at all)
};
LibraryVariant split_library(std::string_view variant);

// The inverse: ("nccl[ring/ll]", "2.29.2") -> "nccl@2.29.2[ring/ll]"; an empty label leaves the name.
std::string with_library(std::string_view variant, std::string_view library);

}  // namespace arbench
