#include "cli/files.hpp"

#include <filesystem>

#include "arbench/core/errors.hpp"
#include "arbench/core/nccl_library_name.hpp"
#include "io/output_paths.hpp"

namespace arbench::cli {

CLI::Option* input_file(CLI::App& app, const std::string& name, std::string& target, const std::string& description,
                        FileCheck check) {
  auto* opt = app.add_option(name, target, description);
  opt->check(CLI::Validator(
      [check](std::string& path) -> std::string {
        try {
          check(path);
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      },
      "", ""));
  if (name.rfind("-", 0) == 0) opt->option_text("FILE");
  return opt;
}

CLI::Option* output_file(CLI::App& app, const std::string& name, std::string& target, const std::string& description) {
  return app.add_option(name, target, description)
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            const std::string why = output_path_problem(path);
            return why.empty() ? why : "'" + path + "': " + why;
          },
          "", ""))
      ->option_text("OUTFILE");
}

CLI::Option* library_files(CLI::App& app, const std::string& name, std::vector<std::string>& target,
                           const std::string& description) {
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&target, name](const std::vector<std::string>& occurrences) {
            std::vector<NcclLibrarySpec> seen;
            for (const std::string& typed : occurrences) {
              std::string why;
              const std::optional<NcclLibrarySpec> s = parse_nccl_library_spec(typed, &why);
              if (!s) throw CLI::ValidationError(name, "'" + typed + "': " + why);
              if (const std::string bad = library_file_problem(s->path); !bad.empty())
                throw CLI::ValidationError(name, s->path + ": " + bad);
              for (const NcclLibrarySpec& o : seen) {
                if (o.path == s->path) throw CLI::ValidationError(name, s->path + " is given twice; give each library once");
                if (!s->name.empty() && o.name == s->name)
                  throw CLI::ValidationError(name, "the NAME " + s->name + " is given twice; give each library its own");
              }
              seen.push_back(*s);
            }
            target = occurrences;
          },
          description)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->option_text("LIBRARY");
}

CLI::Option* input_dir(CLI::App& app, const std::string& name, std::string& target, const std::string& description) {
  return app.add_option(name, target, description)
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            std::error_code ec;
            if (path.empty()) return "an empty folder name; give a folder";
            if (!std::filesystem::is_directory(path, ec))
              return "'" + path + "' is not a folder" +
                     (std::filesystem::exists(path, ec) ? std::string(" (it is a file)") : std::string(" (no such folder)"));
            return {};
          },
          "", ""))
      ->option_text("DIR");
}

}  // namespace arbench::cli
