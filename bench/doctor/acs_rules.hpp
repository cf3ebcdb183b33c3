// How a port whose ACS redirects peer traffic is judged: by where it sits on the route between
// two GPUs and by whether their IOMMU domain translates. The rules are data (one row each, with
// the source it rests on): acs.cpp applies them, docs/doctor.md's table is generated from them
// (acs_rules_markdown; tests/host/doctor checks the docs agree).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/check.hpp"
#include "topo/topology.hpp"

namespace arbench::doctor {

// Where a redirecting port sits for one GPU pair.
enum class PortPlace : std::uint8_t {
  meet_in_switch,  // a switch downstream port where the pair's paths meet: their traffic would turn inside the switch
  goes_up_anyway,  // on the pair's route, but their traffic leaves through it anyway (a root port, GPUs on two root ports)
  off_route,       // no pair's peer traffic crosses it
  on_route,        // (rules only) meet_in_switch or goes_up_anyway
};

// The IOMMU's mode for a pair: translating when either GPU's group is DMA or DMA-FQ.
enum class IommuMode : std::uint8_t { translating, identity_or_off, unknown, any };

struct AcsRule {
  std::string_view id;
  PortPlace place;
  IommuMode iommu;
  Verdict verdict;
  std::string_view when;    // the situation, for the docs table
  std::string_view what;    // what happens to the pair's peer traffic (the item's reading)
  bool fix_setpci = false;  // the fix: the setpci line for that port
  bool fix_iommu_pt = false;  // ... or iommu=pt
  std::string_view source;
};

// The rules, first match wins.
const std::vector<AcsRule>& acs_rules();
const AcsRule& acs_rule(PortPlace place, IommuMode iommu);

// Where port `bdf` sits for GPUs a and b (indices into t.gpus).
PortPlace port_place(const topo::Topology& t, const std::string& bdf, std::size_t a, std::size_t b);

// docs/doctor.md's rule table (markdown, one row per rule) and docs/troubleshooting.md's short
// form (situation, verdict, fix).
std::string acs_rules_markdown();
std::string acs_rules_short_markdown();

}  // namespace arbench::doctor
