// The ACS check: every bridge on a GPU's path, its ACS Control register from the config space
// (config_space.hpp), or lspci -vvv's ACSCtl line when the config file is cut short (non-root).
// A redirecting port is judged by acs_rules.hpp's table: where it sits on each GPU pair's route
// and whether the pair's IOMMU domain translates.
#include <cstdio>

#include "doctor/acs_rules.hpp"
#include "doctor/sysfs/box.hpp"
#include "doctor/checks.hpp"
#include "doctor/sysfs/config_space.hpp"

namespace arbench::doctor {
namespace {

std::string hex4(unsigned v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%04x", v);
  return b;
}

std::string lasting(const std::string& bdf) {
  return " (until reboot; to keep it: turn ACS off in the BIOS, or boot with pci=disable_acs_redir=" + bdf + ")";
}

IommuMode gpu_mode(const GpuIommu& g) {
  if (!g.group) return g.on ? IommuMode::unknown : IommuMode::identity_or_off;
  if (!g.type) return IommuMode::unknown;
  return g.type->rfind("DMA", 0) == 0 ? IommuMode::translating : IommuMode::identity_or_off;
}

IommuMode pair_mode(IommuMode a, IommuMode b) {
  if (a == IommuMode::translating || b == IommuMode::translating) return IommuMode::translating;
  return a == IommuMode::unknown || b == IommuMode::unknown ? IommuMode::unknown : IommuMode::identity_or_off;
}

// The rule of a redirecting port: the worst over the GPU pairs whose route crosses it, with those pairs.
struct PortJudgement {
  const AcsRule* rule = nullptr;
  std::vector<std::string> pairs;
};

PortJudgement judge_port(const topo::Topology& t, const std::vector<IommuMode>& modes, const std::string& bdf) {
  PortJudgement j{&acs_rule(PortPlace::off_route, IommuMode::any), {}};
  for (std::size_t a = 0; a < t.gpus.size(); ++a)
    for (std::size_t b = a + 1; b < t.gpus.size(); ++b) {
      const PortPlace place = port_place(t, bdf, a, b);
      if (place == PortPlace::off_route) continue;
      const AcsRule& r = acs_rule(place, pair_mode(modes[a], modes[b]));
      if (j.pairs.empty() || r.verdict > j.rule->verdict) {
        j.rule = &r;
        j.pairs.clear();
      }
      if (&r == j.rule) j.pairs.push_back(gpu_label(int(a)) + "-" + gpu_label(int(b)));
    }
  return j;
}

std::string pairs_text(const std::vector<std::string>& pairs) {
  std::string out;
  for (std::size_t i = 0; i < pairs.size() && i < 4; ++i) out += (i ? ", " : "") + pairs[i];
  if (pairs.size() > 4) out += " and " + std::to_string(pairs.size() - 4) + " more pairs";
  return out;
}

}  // namespace

Check check_acs(const Inputs& in) {
  Check c("acs", "ACS on the bridges between the GPUs",
          "ACS redirect bits (ReqRedir, CmpltRedir, EgressCtrl) send every peer-to-peer request up to the root "
          "complex and its IOMMU instead of across the bridge; where the IOMMU does not map peer memory the data "
          "never arrives and NCCL or a custom kernel waits for ever (NVIDIA/nccl#2079; vLLM#33041).");
  const topo::Topology& t = in.topo;
  c.data["bridges"] = nlohmann::json::array();
  if (fewer_than_two_gpus(c, in)) return c;
  std::vector<IommuMode> modes;
  for (const auto& g : t.gpus) modes.push_back(gpu_mode(read_gpu_iommu(in.root, g.bus_id)));
  int redirecting = 0, unreadable = 0, need_root = 0;
  for (const auto& [bdf, bridge] : t.bridges) {
    const std::string subject = bdf + " (" + bridge_role(t, bdf) + " of " + gpus_below(t, bdf) + ")";
    const AcsReading acs = read_acs(read_config_space(device_dir(in.root, bdf)));
    nlohmann::json j = {{"bdf", bdf}, {"role", bridge_role(t, bdf)}};
    std::optional<std::uint16_t> control;
    std::string source = "config space", register_at;
    if (acs.found == Found::yes) {
      control = acs.control;
      char at[16];
      std::snprintf(at, sizeof at, "%x", acs.offset + 6u);
      register_at = at;
    } else if (acs.found == Found::unreadable && in.lspci) {
      if (const auto out = in.lspci(bdf)) control = parse_lspci_acsctl(*out);
      if (control) source = "lspci -vvv";
    }
    if (control) {
      const bool redirect = (*control & kAcsRedirectBits) != 0;
      redirecting += redirect ? 1 : 0;
      const std::string read = "ACSCtl " + hex4(*control) + ": " + acs_flags(*control) + " (" + source + ")";
      j["acs_control"] = *control;
      j["flags"] = acs_flags(*control);
      j["redirect"] = redirect;
      j["source"] = source;
      if (!redirect) {
        c.add(subject, Verdict::ok, read);
      } else {
        const PortJudgement pj = judge_port(t, modes, bdf);
        const AcsRule& r = *pj.rule;
        std::string fix;
        if (r.fix_setpci)
          fix = (register_at.empty() ? "sudo setpci -s " + bdf + " ECAP_ACS+6.w=0000"
                                     : "sudo setpci -s " + bdf + " " + register_at + ".w=0000") +
                lasting(bdf);
        if (r.fix_iommu_pt)
          fix += "; or boot with iommu=pt (the IOMMU then passes redirected peer traffic through untranslated: no hang)";
        c.add(subject, r.verdict,
              read + ": redirects peer traffic; " + (pj.pairs.empty() ? "" : pairs_text(pj.pairs) + ": ") +
                  std::string(r.what),
              fix);
        j["rule"] = r.id;
        j["pairs"] = pj.pairs;
      }
    } else if (acs.found == Found::absent) {
      c.add(subject, Verdict::ok, "no ACS capability (" + acs.why + "): nothing to redirect");
      j["acs_control"] = nullptr;
      j["why"] = acs.why;
    } else {
      ++unreadable;
      std::string why = acs.why;
      if (in.lspci) why += "; lspci -vvv shows no ACSCtl line either (it needs root too)";
      const bool short_read = why.find("without root") != std::string::npos;  // not a missing file
      need_root += short_read ? 1 : 0;
      c.add(subject, Verdict::unknown, why,
            short_read ? "run as root (sudo arbench doctor), or read it: sudo lspci -vvv -s " + bdf + " | grep ACSCtl"
                       : "");
      j["acs_control"] = nullptr;
      j["why"] = why;
    }
    c.data["bridges"].push_back(j);
  }
  const std::size_t n = t.bridges.size();
  c.summary = std::to_string(redirecting) + " of " + std::to_string(n) + " bridges redirect peer traffic" +
              (unreadable ? " (" + std::to_string(unreadable) + " not readable" +
                                (need_root ? ", " + std::to_string(need_root) + " of them without root" : "") + ")"
                          : "");
  if (n == 0) {
    c.add("bridges", Verdict::ok, "no bridge on the GPUs' paths (GPUs straight on host bridges)");
    c.summary = c.items.back().read;
  }
  return c;
}

}  // namespace arbench::doctor
