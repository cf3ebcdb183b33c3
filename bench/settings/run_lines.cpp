// The `arbench run` lines for missing measurements; see run_lines.hpp.
#include "settings/run_lines.hpp"

namespace arbench {

std::string size_arg(std::uint64_t bytes) {
  if (bytes >= (1u << 30) && bytes % (1u << 30) == 0) return std::to_string(bytes >> 30) + "G";
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

std::string allreduce_run_line(const Measured& m, int world, const std::string& variants, const std::string& extra,
                               const std::string& out) {
  return "arbench run --backend cuda --gpus " + std::to_string(world) + " --family allreduce --dtype " + m.dtype +
         " --variants '" + variants + "' -b " + size_arg(m.min_bytes()) + " -e " + size_arg(m.max_bytes()) +
         (extra.empty() ? "" : " " + extra) + " --out " + out;
}

std::string fused_run_line(const Measured& m, int world, const std::string& out) {
  return "arbench run --backend cuda --gpus " + std::to_string(world) + " --family allreduce_rmsnorm --dtype " +
         m.dtype + " --hidden " + std::to_string(m.hidden > 0 ? m.hidden : 8192) +
         " --tokens 1,2,4,8,16,32,64,128,256,512,1024,2048 --out " + out;
}

}  // namespace arbench
