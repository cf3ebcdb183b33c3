// The ACS rule table and where a port sits on a GPU pair's route; docs in acs_rules.hpp.
#include "doctor/acs_rules.hpp"

#include <algorithm>
#include <sstream>

namespace arbench::doctor {
namespace {

// Linux's default: what makes "redirect on" the normal state of a box with an IOMMU driver.
constexpr std::string_view kLinuxSetsIt =
    "Linux sets SrcValid, ReqRedir, CmpltRedir and UpstreamFwd on every port whose ACS capability offers them once an "
    "IOMMU driver asked for ACS (drivers/pci/pci.c: pci_request_acs, pci_std_enable_acs, read in Linux 6.18.y), "
    "iommu=pt included: the drivers ask at detection, before any domain type is chosen (drivers/iommu/amd/init.c "
    "detect_ivrs, drivers/iommu/intel/dmar.c detect_intel_iommu, read in patches against 5.x and 6.x, not at a tag)";
constexpr std::string_view kDivergence =
    "a redirect bit acts only where a request would turn back down without passing the root complex: at the port "
    "where the two paths part (PCI Express Base Specification 4.0, 6.12 Access Control Services; the divergence port "
    "of a 2026 patch to Linux's Documentation/driver-api/pci/p2pdma.rst, read on the dri-devel list)";

}  // namespace

const std::vector<AcsRule>& acs_rules() {
  static const std::vector<AcsRule> rules = {
      {"off_route", PortPlace::off_route, IommuMode::any, Verdict::ok,
       "no GPU pair's route crosses the port (every pair below it parts below it: a root port above one switch that "
       "holds all the GPUs)",
       "no GPU pair's peer traffic crosses this port", false, false, kDivergence},
      {"translating", PortPlace::on_route, IommuMode::translating, Verdict::may_hang,
       "the port lies on a GPU pair's route and the IOMMU domain of either GPU translates (DMA, DMA-FQ)",
       "redirected peer requests reach the IOMMU, which translates them with the requester's DMA domain; where that "
       "domain does not map the peer GPU's memory, the data never arrives and NCCL or a custom kernel waits for ever",
       true, true,
       "PCI Express Base Specification 4.0, 6.12 (redirected requests go up to the root complex and its translation); "
       "hangs reported with ACS on and the IOMMU translating: NVIDIA/nccl#2079, vllm-project/vllm#33041"},
      {"switch_identity", PortPlace::meet_in_switch, IommuMode::identity_or_off, Verdict::slows,
       "a switch downstream port where two GPUs' paths meet, IOMMU identity (iommu=pt) or off",
       "slower, no hang: their peer traffic leaves the switch for the root complex and comes back (untranslated); "
       "where the root complex does not forward peer traffic at all, the p2p check's functional test fails for the "
       "pair and says may hang there",
       true, false, kLinuxSetsIt},
      {"root_identity", PortPlace::goes_up_anyway, IommuMode::identity_or_off, Verdict::ok,
       "a root port (or a port whose pairs' traffic goes up through it anyway: GPUs on different root ports), IOMMU "
       "identity (iommu=pt) or off",
       "ok: their peer traffic crosses the root complex anyway, and the IOMMU passes it through", false, false,
       kLinuxSetsIt},
      {"switch_unknown", PortPlace::meet_in_switch, IommuMode::unknown, Verdict::slows,
       "a switch downstream port where two GPUs' paths meet, IOMMU mode unreadable",
       "slower at least (their peer traffic leaves the switch for the root complex); whether it may hang depends on "
       "the IOMMU's mode, which could not be read (see the iommu check)",
       true, false, kDivergence},
      {"root_unknown", PortPlace::goes_up_anyway, IommuMode::unknown, Verdict::unknown,
       "a port whose pairs' traffic goes up through it anyway, IOMMU mode unreadable",
       "their traffic crosses the root complex anyway; whether the IOMMU translates it could not be read (see the iommu "
       "check)",
       false, false, kDivergence},
  };
  return rules;
}

const AcsRule& acs_rule(PortPlace place, IommuMode iommu) {
  for (const AcsRule& r : acs_rules()) {
    const bool at = r.place == place || (r.place == PortPlace::on_route && place != PortPlace::off_route);
    if (at && (r.iommu == iommu || r.iommu == IommuMode::any)) return r;
  }
  return acs_rules().front();  // unreachable: the table covers every place and mode
}

PortPlace port_place(const topo::Topology& t, const std::string& bdf, std::size_t a, std::size_t b) {
  const topo::GpuPath &pa = t.gpus[a].path, &pb = t.gpus[b].path;
  std::size_t k = 0;  // the bridges both paths share, from the root port down
  if (pa.host_bridge == pb.host_bridge)
    while (k < pa.bridges.size() && k < pb.bridges.size() && pa.bridges[k] == pb.bridges[k]) ++k;
  const auto below = [&](const std::vector<std::string>& v) {
    return std::find(v.begin() + long(std::min(k, v.size())), v.end(), bdf) != v.end();
  };
  if (!below(pa.bridges) && !below(pb.bridges)) return PortPlace::off_route;
  // Parting below a shared switch's upstream port: the first port on either side is a downstream port
  // of that switch, where the pair's traffic would turn without a redirect.
  const bool first_a = k < pa.bridges.size() && pa.bridges[k] == bdf, first_b = k < pb.bridges.size() && pb.bridges[k] == bdf;
  return k >= 1 && (first_a || first_b) ? PortPlace::meet_in_switch : PortPlace::goes_up_anyway;
}

std::string acs_rules_markdown() {
  std::ostringstream os;
  os << "| rule | where the redirecting port sits, and the IOMMU | verdict | what happens | fix | source |\n"
        "|---|---|---|---|---|---|\n";
  for (const AcsRule& r : acs_rules())
    os << "| `" << r.id << "` | " << r.when << " | " << verdict_name(r.verdict) << " | " << r.what << " | "
       << (r.fix_setpci ? (r.fix_iommu_pt ? "the setpci line for the port, or `iommu=pt`" : "the setpci line for the port")
                        : "—")
       << " | " << r.source << " |\n";
  return os.str();
}

std::string acs_rules_short_markdown() {
  std::ostringstream os;
  os << "| ACS redirect on | IOMMU | `arbench doctor` says | fix |\n|---|---|---|---|\n";
  for (const AcsRule& r : acs_rules()) {
    const std::string_view mode = r.iommu == IommuMode::translating       ? "translating (DMA, DMA-FQ)"
                                  : r.iommu == IommuMode::identity_or_off ? "identity (`iommu=pt`) or off"
                                  : r.iommu == IommuMode::unknown         ? "unreadable"
                                                                          : "any";
    const std::string_view place = r.place == PortPlace::off_route        ? "a port no GPU pair's traffic crosses"
                                   : r.place == PortPlace::meet_in_switch ? "a switch downstream port where two GPUs meet"
                                   : r.place == PortPlace::goes_up_anyway ? "a root port, GPUs on different root ports"
                                                                          : "a port on a GPU pair's route";
    os << "| " << place << " | " << mode << " | " << verdict_name(r.verdict) << " | "
       << (r.fix_setpci ? (r.fix_iommu_pt ? "`setpci` on that port, or `iommu=pt`" : "`setpci` on that port") : "—")
       << " |\n";
  }
  return os.str();
}

}  // namespace arbench::doctor
