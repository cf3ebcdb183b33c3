// The names of side-by-side NCCL libraries and of their variants; see nccl_library_name.hpp.
#include "arbench/core/nccl_library_name.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>

namespace arbench {

std::string nccl_label_problem(std::string_view label) {
  const std::string quoted = "'" + std::string(label) + "'";
  if (label.empty()) return "an empty name";
  if (label.size() > kMaxNcclLabel)
    return quoted + " is longer than " + std::to_string(kMaxNcclLabel) + " characters";
  if (!std::isalnum(static_cast<unsigned char>(label.front())))
    return quoted + " does not start with a letter or a digit";
  for (char c : label)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '+' && c != '-')
      return quoted + " has '" + std::string(1, c) + "'; a name is letters, digits and . _ + -";
  return {};
}

std::optional<NcclLibrarySpec> parse_nccl_library_spec(std::string_view text, std::string* why) {
  auto fail = [&](std::string w) -> std::optional<NcclLibrarySpec> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  NcclLibrarySpec s;
  const auto eq = text.find('=');
  if (eq != std::string_view::npos && text.substr(0, eq).find('/') == std::string_view::npos) {
    s.name = std::string(text.substr(0, eq));
    s.path = std::string(text.substr(eq + 1));
    if (const std::string bad = nccl_label_problem(s.name); !bad.empty())
      return fail("NAME " + bad + " (as in NAME=PATH)");
  } else {
    s.path = std::string(text);
  }
  if (s.path.empty()) return fail(s.name.empty() ? "an empty path" : "NAME=" + s.name + " without a PATH");
  return s;
}

std::string library_file_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return "a folder, not a library; name the library file in it (e.g. " + (fs::path(path) / "libnccl.so.2").string() + ")";
  if (!fs::exists(path, ec)) return "no such file";
  if (!fs::is_regular_file(path, ec)) return "not a regular file (a device or a pipe?)";
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  if (!in.read(magic, 4) || !(magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F'))
    return "not a shared library (no ELF header: a text or data file); name an NCCL library, e.g. "
           "<venv>/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2";
  return {};
}

LibraryVariant split_library(std::string_view variant) {
  const auto open = variant.find('[');
  const auto at = variant.substr(0, open).find('@');
  if (at == std::string_view::npos) return {std::string(variant), {}};
  const std::string_view config = open == std::string_view::npos ? std::string_view() : variant.substr(open);
  const std::string_view label = variant.substr(at + 1, (open == std::string_view::npos ? variant.size() : open) - at - 1);
  return {std::string(variant.substr(0, at)) + std::string(config), std::string(label)};
}

std::string with_library(std::string_view variant, std::string_view library) {
  if (library.empty()) return std::string(variant);
  const auto open = variant.find('[');
  if (open == std::string_view::npos) return std::string(variant) + "@" + std::string(library);
  return std::string(variant.substr(0, open)) + "@" + std::string(library) + std::string(variant.substr(open));
}

}  // namespace arbench
