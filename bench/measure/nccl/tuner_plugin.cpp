// Finding the tuner plugin; see tuner_plugin.hpp.
#include "measure/nccl/tuner_plugin.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace arbench {

TunerPluginPath find_tuner_plugin() {
  namespace fs = std::filesystem;
  TunerPluginPath t;
  std::error_code ec;
  if (const char* env = std::getenv("ARBENCH_NCCL_TUNER_PLUGIN"); env != nullptr && *env != '\0') {
    t.path = fs::absolute(env, ec).string();
    t.looked = t.path + " ($ARBENCH_NCCL_TUNER_PLUGIN)";
    t.found = fs::is_regular_file(t.path, ec);
    return t;
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path dir = ec ? fs::current_path(ec) : exe.parent_path();
  const fs::path candidates[] = {dir / kTunerPluginFile, (dir / ".." / "lib" / kTunerPluginFile).lexically_normal()};
  for (const fs::path& c : candidates) {
    t.looked += (t.looked.empty() ? "" : ", ") + c.string();
    if (fs::is_regular_file(c, ec)) {
      t.path = c.string();
      t.found = true;
      return t;
    }
  }
  // A build folder (CMakeCache.txt beside arbench) builds the plugin next to arbench; an installed
  // tree has it in ../lib.
  if (fs::is_regular_file(dir / "CMakeCache.txt", ec)) {
    t.path = candidates[0].string();
    t.put_by = "building the target arbench_nccl_tuner in " + dir.string();
  } else {
    t.path = candidates[1].string();
    t.put_by = "`cmake --install`";
  }
  return t;
}

}  // namespace arbench
