// The links check: each GPU's PCIe link and each bridge's on its path, current against maximum
// speed and width (sysfs), the ASPM state of the link where the config space shows it, the
// kernel's ASPM policy and pcie_port_pm.
#include <algorithm>

#include "doctor/sysfs/box.hpp"
#include "doctor/checks.hpp"
#include "doctor/sysfs/config_space.hpp"
#include "topo/tree.hpp"

namespace arbench::doctor {
namespace {

std::string gen(const topo::LinkState& s) {
  return s.generation() ? "Gen" + std::to_string(*s.generation()) : std::string("Gen?");
}

// The verdict of one link and what to add to its reading.
Verdict judge_link(const topo::PcieLink& l, std::string& read, std::string& fix) {
  read = topo::format_link(l);
  if (read == "unknown") {
    read = "link speed and width unreadable";
    return Verdict::unknown;
  }
  const auto cg = l.current.generation(), mg = l.max.generation();
  Verdict v = Verdict::ok;
  if (l.current.width && l.max.width && *l.current.width < *l.max.width) {
    read += ": trained to x" + std::to_string(*l.current.width) + " of x" + std::to_string(*l.max.width);
    v = Verdict::slows;
  }
  if (cg && mg && *cg < *mg) {
    if (*cg == 1) {
      read += "; Gen1 now: an idle GPU drops its link to Gen1 to save power (read it again under load: "
              "nvidia-smi -q -d PCIE)";
    } else {
      read += "; trained to " + gen(l.current) + " of " + gen(l.max);
      v = Verdict::slows;
    }
  }
  if (v == Verdict::slows)
    fix = "reseat the card or riser, check the slot's lanes in the board manual (shared with M.2 or another slot) and "
          "the BIOS's PCIe speed setting; a riser or retimer rated below the link's generation trains it down";
  return v;
}

void add_aspm(const ConfigSpace& cs, std::string& read, Verdict& v, std::string& fix) {
  const PcieCapReading cap = read_pcie_capability(cs);
  if (cap.found != Found::yes) return;
  read += std::string("; ASPM ") + aspm_name(cap.aspm);
  if (cap.aspm > 0) {
    v = std::max(v, Verdict::slows);
    if (fix.empty())
      fix = "echo performance | sudo tee /sys/module/pcie_aspm/parameters/policy (or boot with pcie_aspm=off)";
  }
}

}  // namespace

Check check_links(const Inputs& in) {
  Check c("links", "PCIe links",
          "A link trained below its width or generation caps every transfer through it; ASPM's low-power states add "
          "microseconds to the first access after idle, which small all-reduces feel.");
  const topo::Topology& t = in.topo;
  int slow = 0;
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    const auto& g = t.gpus[i];
    std::string read, fix;
    Verdict v = judge_link(g.link, read, fix);
    // The port above the GPU caps the link's generation whatever the GPU can do.
    if (!g.path.bridges.empty())
      if (auto b = t.bridges.find(g.path.bridges.back()); b != t.bridges.end()) {
        const auto gm = g.link.max.generation(), bm = b->second.link.max.generation();
        if (gm && bm && *bm < *gm) {
          read += "; the port above (" + b->first + ") tops out at " + gen(b->second.link.max);
          v = std::max(v, Verdict::slows);
          if (fix.empty()) fix = "move the GPU to a slot whose port runs at " + gen(g.link.max);
        }
      }
    add_aspm(read_config_space(device_dir(in.root, g.bus_id)), read, v, fix);
    slow += v == Verdict::slows ? 1 : 0;
    c.add(gpu_label(int(i)) + " " + g.bus_id, v, read, fix);
  }
  for (const auto& [bdf, b] : t.bridges) {
    std::string read, fix;
    Verdict v = judge_link(b.link, read, fix);
    add_aspm(read_config_space(device_dir(in.root, bdf)), read, v, fix);
    slow += v == Verdict::slows ? 1 : 0;
    c.add(bdf + " (" + bridge_role(t, bdf) + ")", v, read, fix);
  }
  if (t.gpus.empty()) c.add("GPUs", Verdict::unknown, "no NVIDIA GPU found: no link to read");
  const auto policy = module_parameter(in.root, "pcie_aspm", "policy");
  std::string current;
  if (policy) {
    const auto open = policy->find('['), close = policy->find(']');
    current = open != std::string::npos && close > open ? policy->substr(open + 1, close - open - 1) : *policy;
  }
  const bool saving = current == "powersave" || current == "powersupersave";
  c.add("ASPM policy", !policy ? Verdict::unknown : saving ? Verdict::slows : Verdict::ok,
        !policy ? "unreadable (/sys/module/pcie_aspm/parameters/policy: ASPM not built into this kernel?)"
                : current + (current == "default" ? " (the firmware's choice per link)" : ""),
        saving ? "echo performance | sudo tee /sys/module/pcie_aspm/parameters/policy" : "");
  const auto cmd = kernel_cmdline(in.root);
  const auto port_pm = cmd ? cmd->find("pcie_port_pm") : std::map<std::string, std::string>::const_iterator{};
  c.add("pcie_port_pm", cmd ? Verdict::ok : Verdict::unknown,
        !cmd                     ? "kernel command line unreadable"
        : port_pm == cmd->end() ? "not set (ports may suspend when nothing below them is busy)"
                                : "pcie_port_pm=" + port_pm->second + " on the kernel command line");
  c.data = {{"aspm_policy", policy ? nlohmann::json(current) : nlohmann::json()},
            {"pcie_port_pm", cmd && port_pm != cmd->end() ? nlohmann::json(port_pm->second) : nlohmann::json()}};
  c.summary = (t.gpus.empty() ? std::string("no NVIDIA GPU found")
                              : std::to_string(slow) + " of " + std::to_string(t.gpus.size() + t.bridges.size()) +
                                    " links slow (trained down, or ASPM on)") +
              "; ASPM policy " + (policy ? current : std::string("unknown"));
  return c;
}

}  // namespace arbench::doctor
