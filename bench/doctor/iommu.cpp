// The IOMMU check: whether the kernel runs an IOMMU, whether it translates the GPUs' DMA or passes
// it through (each IOMMU group's `type`: identity = passthrough, DMA / DMA-FQ = translating), the
// group of each GPU, and the kernel command line that decides it.
#include "doctor/sysfs/box.hpp"
#include "doctor/checks.hpp"

namespace arbench::doctor {
namespace fs = std::filesystem;

namespace {

// The command-line words that set the IOMMU's mode, as typed ("iommu=pt amd_iommu=on"); "" if none.
std::string iommu_words(const std::map<std::string, std::string>& cmd) {
  std::string out;
  for (const char* k : {"iommu", "intel_iommu", "amd_iommu", "iommu.passthrough", "iommu.strict"})
    if (auto it = cmd.find(k); it != cmd.end()) out += (out.empty() ? "" : " ") + it->first + "=" + it->second;
  return out;
}

}  // namespace

Check check_iommu(const Inputs& in, bool acs_redirects) {
  Check c("iommu", "IOMMU",
          "A translating IOMMU (DMA) sits in the path of every peer-to-peer request that crosses the root complex, "
          "and of every one ACS redirects; passthrough (identity) or off keeps P2P direct. With ACS redirecting and the "
          "IOMMU translating, P2P data can vanish: NCCL hangs (vLLM#33041).");
  const auto cmd = kernel_cmdline(in.root);
  const std::string words = cmd ? iommu_words(*cmd) : std::string();
  const fs::path groups = in.root / "sys/kernel/iommu_groups";
  const bool on = iommu_on(in.root);
  c.add("kernel", Verdict::ok,
        std::string(on ? "IOMMU on (" : "no IOMMU group: the IOMMU is off or not exposed (") + groups.string() + ")" +
            "; command line: " + (!cmd ? "unreadable" : words.empty() ? "no iommu setting" : words));
  c.data = {{"on", on}, {"cmdline", cmd ? nlohmann::json(words) : nlohmann::json()}, {"gpus", nlohmann::json::array()}};
  int translating = 0, untold = 0;
  for (std::size_t i = 0; i < in.topo.gpus.size(); ++i) {
    const std::string& bdf = in.topo.gpus[i].bus_id;
    const std::string subject = gpu_label(int(i)) + " " + bdf;
    const GpuIommu gi = read_gpu_iommu(in.root, bdf);
    nlohmann::json j = {{"bus_id", bdf}};
    if (!gi.group) {
      untold += on ? 1 : 0;
      c.add(subject, on ? Verdict::unknown : Verdict::ok,
            on ? "no iommu_group link although the IOMMU is on: cannot tell whether its DMA is translated"
               : "no IOMMU group: DMA is not translated");
      c.data["gpus"].push_back(j);
      continue;
    }
    const std::string& group = *gi.group;
    const auto& type = gi.type;
    j["group"] = group;
    j["type"] = type ? nlohmann::json(*type) : nlohmann::json();
    c.data["gpus"].push_back(j);
    if (!type) {
      ++untold;
      c.add(subject, Verdict::unknown, "IOMMU group " + group + ": its type is unreadable (" +
                                           (groups / group / "type").string() + "; kernels before 5.11 lack it)");
      continue;
    }
    if (*type == "identity") {
      c.add(subject, Verdict::ok, "IOMMU group " + group + ": identity (passthrough)");
      continue;
    }
    const bool dma = type->rfind("DMA", 0) == 0;
    translating += dma ? 1 : 0;
    const Verdict v = !dma ? Verdict::ok : acs_redirects ? Verdict::may_hang : Verdict::slows;
    c.add(subject, v,
          "IOMMU group " + group + ": " + *type +
              (dma ? std::string(" (translating)") + (acs_redirects ? ", and ACS redirects peer traffic into it" : "")
                   : ""),
          dma ? "boot with iommu=pt (keep amd_iommu=on or intel_iommu=on if your platform needs the IOMMU), or turn "
                "the IOMMU off in the BIOS; then reboot"
              : "");
  }
  c.summary = !on ? "off" + std::string(words.empty() ? "" : " (" + words + ")")
              : translating ? "translating (DMA) for " + std::to_string(translating) + " of " +
                                  std::to_string(in.topo.gpus.size()) + " GPUs" + (words.empty() ? "" : "; " + words)
              : untold    ? "on; whether it translates the GPUs' DMA is unreadable for " + std::to_string(untold) + " GPUs"
                            : "on, no GPU translated" + std::string(words.empty() ? "" : " (" + words + ")");
  return c;
}

}  // namespace arbench::doctor
