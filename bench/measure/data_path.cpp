#include "measure/data_path.hpp"

#include "arbench/world.hpp"

#include <cstdlib>
#include <fstream>

namespace arbench {

std::string data_path_of(const Fabric& f, const Variant& v) {
  switch (f.backend()) {
    case Backend::host:
      return f.processes().multi_process() ? "shared memory (one process per rank)" : "host memory (CPU threads)";
    case Backend::single_gpu: return "one GPU's memory (virtual ranks)";
    case Backend::cuda: return v.data_mover() == DataMover::nccl ? "NCCL" : "P2P load/store";
  }
  return {};
}

namespace {

constexpr int kLoc = 0, kPix = 4, kPxb = 5, kPhb = 8, kSys = 9;

}  // namespace

int nccl_path_type(topo::Relation r) {
  switch (r) {
    case topo::Relation::kSelf: return kLoc;
    case topo::Relation::kPix: return kPix;
    case topo::Relation::kPxb: return kPxb;
    case topo::Relation::kPhb:
    case topo::Relation::kNode: return kPhb;
    case topo::Relation::kSys: return kSys;
  }
  return kSys;
}

int nccl_p2p_level(const std::map<std::string, std::string>& env, bool amd_at_most_two_gpus) {
  int level = amd_at_most_two_gpus ? kSys : kPxb;
  if (auto it = env.find("NCCL_P2P_DISABLE"); it != env.end() && std::strtol(it->second.c_str(), nullptr, 0) == 1)
    return kLoc;
  auto it = env.find("NCCL_P2P_LEVEL");
  if (it == env.end()) return level;
  const std::string& v = it->second;
  static const char* names[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"};
  for (int i = 0; i <= kSys; ++i)
    if (v == names[i]) return i;
  if (!v.empty() && v[0] >= '0' && v[0] <= '9') {
    static const int old_to_new[] = {kLoc, kPix, kPxb, kPhb, kSys, kSys};
    const long n = std::strtol(v.c_str(), nullptr, 0);
    return old_to_new[n < 0 ? 0 : n > 5 ? 5 : n];
  }
  return level;  // a value NCCL does not know: it keeps its default
}

NcclTransport nccl_pair_transport(topo::Relation r, int p2p_level) {
  return nccl_path_type(r) <= p2p_level ? NcclTransport::p2p : NcclTransport::shm;
}

std::string nccl_data_path(const std::vector<std::vector<topo::Relation>>& rel, const std::map<std::string, std::string>& env,
                           bool amd_at_most_two_gpus, bool all_nvlink) {
  if (all_nvlink && !(env.count("NCCL_P2P_DISABLE") && env.at("NCCL_P2P_DISABLE") == "1")) return "NCCL NVLink";
  const int level = nccl_p2p_level(env, amd_at_most_two_gpus);
  int pairs = 0, shm = 0;
  for (std::size_t a = 0; a < rel.size(); ++a)
    for (std::size_t b = a + 1; b < rel.size(); ++b) {
      ++pairs;
      shm += nccl_pair_transport(rel[a][b], level) == NcclTransport::shm ? 1 : 0;
    }
  if (pairs == 0 || shm == 0) return "NCCL P2P";
  if (shm == pairs) return "NCCL SHM (through host memory)";
  return "NCCL P2P + SHM (" + std::to_string(shm) + " of " + std::to_string(pairs) + " pairs through host memory)";
}

bool amd_cpu(const std::string& root) {
  std::ifstream in(root + "/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("vendor_id", 0) == 0) return line.find("AuthenticAMD") != std::string::npos;
  return false;
}

}  // namespace arbench
