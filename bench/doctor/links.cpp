// The links check: each GPU's PCIe link and each bridge's on its path, current against the
// link's maximum speed and width, the lower of both ends' (sysfs max_link_*), the ASPM state of the link where the config space shows it, the
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

// The other end of a link: its maximum (LnkCap, as sysfs's max_link_* give it) and what to call it.
struct OtherEnd {
  topo::LinkState max;
  std::string name;  // "the device's" (below a port) or "the port's" (above a switch upstream port)
  std::string bdf;
};

// The verdict of one link and what to add to its reading. The link trains to the lower of both
// ends' maxima: a current speed or width below this end's maximum but at the other end's is that
// end's limit (said, not judged); below both is a link trained down. `say_limit` false: the caller
// says it (the port above a GPU).
Verdict judge_link(const topo::PcieLink& l, const std::optional<OtherEnd>& other, bool say_limit, std::string& read,
                   std::string& fix) {
  read = topo::format_link(l);
  if (read == "unknown") {
    read = "link speed and width unreadable";
    return Verdict::unknown;
  }
  const auto cg = l.current.generation(), mg = l.max.generation();
  // The other end's maximum generation and width; 0 when unknown.
  const int og = other ? other->max.generation().value_or(0) : 0;
  const int ow = other ? other->max.width.value_or(0) : 0;
  const auto limit = [&](const std::string& what) {
    if (say_limit) read += "; limited by " + other->name + " " + what + " (" + other->bdf + ", the link's other end)";
  };
  Verdict v = Verdict::ok;
  if (l.current.width && l.max.width && *l.current.width < *l.max.width) {
    if (ow > 0 && *l.current.width >= ow) {
      limit("x" + std::to_string(ow));
    } else {
      const int top = ow > 0 ? std::min(ow, *l.max.width) : *l.max.width;
      read += ": trained to x" + std::to_string(*l.current.width) + " of x" + std::to_string(top);
      v = Verdict::slows;
    }
  }
  if (cg && mg && *cg < *mg) {
    if (og > 0 && *cg >= og) {
      limit("Gen" + std::to_string(og));
    } else if (*cg == 1) {
      read += "; Gen1 now: an idle GPU drops its link to Gen1 to save power (read it again under load: "
              "nvidia-smi -q -d PCIE)";
    } else {
      read += "; trained to " + gen(l.current) + " of Gen" + std::to_string(og > 0 ? std::min(og, *mg) : *mg);
      v = Verdict::slows;
    }
  }
  if (v == Verdict::slows)
    fix = "reseat the card or riser, check the slot's lanes in the board manual (shared with M.2 or another slot) and "
          "the BIOS's PCIe speed setting; a riser or retimer rated below the link's generation trains it down";
  return v;
}

// The other end of bridge `bdf`'s link: the device below a root or downstream port (the next
// bridge on a GPU's path, or the GPU), the port above a switch upstream port.
std::optional<OtherEnd> other_end(const topo::Topology& t, const std::string& bdf) {
  for (const auto& g : t.gpus)
    for (std::size_t k = 0; k < g.path.bridges.size(); ++k) {
      if (g.path.bridges[k] != bdf) continue;
      const bool upstream = k % 2 == 1;
      if (upstream) {
        const auto above = t.bridges.find(g.path.bridges[k - 1]);
        if (above == t.bridges.end()) return std::nullopt;
        return OtherEnd{above->second.link.max, "the port's", above->first};
      }
      if (k + 1 == g.path.bridges.size()) return OtherEnd{g.link.max, "the device's", g.bus_id};
      const auto below = t.bridges.find(g.path.bridges[k + 1]);
      if (below == t.bridges.end()) return std::nullopt;
      return OtherEnd{below->second.link.max, "the device's", below->first};
    }
  return std::nullopt;
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
    const auto b = g.path.bridges.empty() ? t.bridges.end() : t.bridges.find(g.path.bridges.back());
    std::optional<OtherEnd> port;
    if (b != t.bridges.end()) port = OtherEnd{b->second.link.max, "the port's", b->first};
    Verdict v = judge_link(g.link, port, /*say_limit=*/false, read, fix);
    // The port above the GPU caps the link whatever the GPU can do.
    if (b != t.bridges.end()) {
      const auto gm = g.link.max.generation(), bm = b->second.link.max.generation();
      const auto gw = g.link.max.width, bw = b->second.link.max.width;
      std::string slot;
      if (gm && bm && *bm < *gm) {
        read += "; the port above (" + b->first + ") tops out at " + gen(b->second.link.max);
        slot = gen(g.link.max);
      }
      if (gw && bw && *bw < *gw) {
        read += "; the port above (" + b->first + ") has x" + std::to_string(*bw) + " of the GPU's x" + std::to_string(*gw);
        slot += (slot.empty() ? "x" : " x") + std::to_string(*gw);
      }
      if (!slot.empty()) {
        v = std::max(v, Verdict::slows);
        if (fix.empty()) fix = "move the GPU to a slot whose port runs at " + slot;
      }
    }
    add_aspm(read_config_space(device_dir(in.root, g.bus_id)), read, v, fix);
    slow += v == Verdict::slows ? 1 : 0;
    c.add(gpu_label(int(i)) + " " + g.bus_id, v, read, fix);
  }
  for (const auto& [bdf, b] : t.bridges) {
    std::string read, fix;
    Verdict v = judge_link(b.link, other_end(t, bdf), /*say_limit=*/true, read, fix);
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
