// The P2P check: per GPU pair, P2P as the driver reports it (NVML's P2P status, read and write)
// beside P2P as it works (the functional peer-to-peer check, when the GPUs could be used), and
// every disagreement between the two named.
#include <algorithm>
#include <tuple>

#include "doctor/sysfs/box.hpp"
#include "doctor/checks.hpp"

namespace arbench::doctor {
namespace {

constexpr int kNvmlP2pOk = 0;

// What to do about a P2P status the driver reports.
std::string status_fix(int s) {
  switch (s) {
    case 1:
    case 3:
      return "the platform's root complexes or chipset do not carry P2P between these GPUs: put them under one PCIe "
             "switch or root complex, or leave P2P off (NCCL goes through host memory)";
    case 2: return "this GPU model has no P2P over PCIe in this driver (GeForce cards): traffic goes through host memory";
    case 4: return "a driver registry key turns P2P off: look for NVreg_RegistryDwords in /etc/modprobe.d and remove it";
    default: return "the driver does not allow P2P here: traffic goes through host memory";
  }
}

int index_of(const std::vector<std::string>& ids, const std::string& id) {
  const auto it = std::find(ids.begin(), ids.end(), id);
  return it == ids.end() ? -1 : int(it - ids.begin());
}

}  // namespace

const char* nvml_p2p_status_name(int s) {
  static const char* names[] = {"OK", "CHIPSET_NOT_SUPPORTED", "GPU_NOT_SUPPORTED", "IOH_TOPOLOGY_NOT_SUPPORTED",
                                "DISABLED_BY_REGKEY", "NOT_SUPPORTED", "UNKNOWN"};
  return s >= 0 && s <= 6 ? names[s] : "UNKNOWN";
}

Check check_p2p(const Inputs& in) {
  Check c("p2p", "P2P as the driver reports it and as it works",
          "NCCL and the engines' custom all-reduce trust what the driver reports. A pair reported as working whose "
          "data does not arrive hangs them; a pair reported as unsupported sends all traffic through host memory.");
  const auto& gpus = in.topo.gpus;
  if (fewer_than_two_gpus(c, in)) return c;
  if (!in.nvml.loaded) c.add("NVML", Verdict::unknown, "not loaded: " + in.nvml.why + "; the driver's view is unknown");
  if (!in.functional.ran) c.add("functional check", Verdict::unknown, "not run: " + in.functional.why);
  c.data["pairs"] = nlohmann::json::array();
  int broken = 0, refused = 0, disagree = 0;
  for (std::size_t a = 0; a < gpus.size(); ++a)
    for (std::size_t b = a + 1; b < gpus.size(); ++b) {
      const std::string &ia = gpus[a].bus_id, &ib = gpus[b].bus_id;
      const std::string subject = gpu_label(int(a)) + "-" + gpu_label(int(b));
      std::optional<int> rd, wr;
      if (auto it = in.nvml.p2p.find({ia, ib}); it != in.nvml.p2p.end()) std::tie(rd, wr) = it->second;
      const bool nvml_known = rd && wr;
      const bool nvml_ok = nvml_known && *rd == kNvmlP2pOk && *wr == kNvmlP2pOk;
      std::string read = nvml_known ? std::string("NVML read ") + nvml_p2p_status_name(*rd) + ", write " +
                                          nvml_p2p_status_name(*wr)
                                    : std::string("NVML: unknown");
      std::optional<PeerPath> ab, ba;
      std::string detail;
      if (in.functional.ran) {
        const int fa = index_of(in.functional.bus_ids, ia), fb = index_of(in.functional.bus_ids, ib);
        if (fa >= 0 && fb >= 0) {
          const PeerLink &l1 = in.functional.access.at(fa, fb), &l2 = in.functional.access.at(fb, fa);
          ab = l1.path;
          ba = l2.path;
          detail = !l1.detail.empty() ? l1.detail : l2.detail;
        }
      }
      if (ab) read += std::string("; check ") + peer_path_name(*ab) + " / " + peer_path_name(*ba);
      Verdict v = Verdict::ok;
      std::string fix;
      if (ab && (*ab == PeerPath::broken || *ba == PeerPath::broken)) {
        ++broken;
        v = Verdict::may_hang;
        read += (nvml_ok ? ": reported as working, but the data did not arrive" : ": the data did not arrive") +
                (detail.empty() ? "" : " (" + detail + ")");
        fix = "see the acs and iommu checks; until fixed: NCCL_P2P_DISABLE=1 and the engine's custom all-reduce off";
      } else if (nvml_known && !nvml_ok) {
        ++refused;
        v = Verdict::slows;
        fix = status_fix(*rd != kNvmlP2pOk ? *rd : *wr);
        if (ab && *ab == PeerPath::ok && *ba == PeerPath::ok) {
          ++disagree;
          --refused;
          read += ": NVML disagrees with CUDA, whose reported P2P moved the data";
          v = Verdict::ok;
          fix.clear();
        }
      } else if (nvml_ok && ab && (*ab == PeerPath::no_p2p || *ba == PeerPath::no_p2p)) {
        ++disagree;
        v = Verdict::slows;
        read += ": NVML reports P2P, CUDA does not (cudaDeviceCanAccessPeer 0)";
        fix = "CUDA sends this pair through host memory; check CUDA_VISIBLE_DEVICES and that both GPUs use one driver";
      }
      c.add(subject, v, read, fix);
      c.data["pairs"].push_back({{"a", ia}, {"b", ib},
                                 {"nvml_read", rd ? nlohmann::json(*rd) : nlohmann::json()},
                                 {"nvml_write", wr ? nlohmann::json(*wr) : nlohmann::json()},
                                 {"check", ab ? nlohmann::json(std::string(peer_path_name(*ab)) + "/" + peer_path_name(*ba))
                                              : nlohmann::json()}});
    }
  const std::size_t pairs = gpus.size() * (gpus.size() - 1) / 2;
  c.summary = std::to_string(pairs) + " pairs: " + std::to_string(broken) + " broken, " + std::to_string(refused) +
              " not allowed by the driver, " + std::to_string(disagree) + " disagreements" +
              (in.nvml.loaded ? "" : "; NVML not loaded") + (in.functional.ran ? "" : "; functional check not run");
  return c;
}

}  // namespace arbench::doctor
