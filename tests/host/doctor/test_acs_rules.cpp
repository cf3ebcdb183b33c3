// The ACS verdicts of issue 57 on trees the tests build: a redirecting port is judged by where it
// sits on each GPU pair's route and by the pair's IOMMU mode (bench/doctor/acs_rules.hpp), each
// redirect bit on its own makes a port redirect, a backward capability chain still finds ACS, and
// docs/doctor.md's rule table and docs/troubleshooting.md's short one are the code's.
#include <gtest/gtest.h>

#include "box_fixture.hpp"
#include "doctor/acs_rules.hpp"
#include "doctor/checks.hpp"
#include "doctor/sysfs/config_space.hpp"
#include "doctor_checks.hpp"

namespace arbench::doctor {
namespace {

using test::BoxTree;
using test::ConfigBuilder;

// Linux's bits once an IOMMU driver asked for ACS: SrcValid, ReqRedir, CmpltRedir, UpstreamFwd.
constexpr std::uint16_t kLinuxDefault = kAcsSrcValid | kAcsReqRedir | kAcsCmpltRedir | kAcsUpstreamFwd;

std::vector<std::uint8_t> port_with_acs(std::uint16_t control) {
  return ConfigBuilder().pcie(5, 16, 5, 16).acs(control).bytes();
}

// Two GPUs each straight below its own root port of pci0000:00, IOMMU in passthrough:
//   0000:00:01.1 > GPU 0000:01:00.0; 0000:00:03.1 > GPU 0000:02:00.0
void two_root_ports(BoxTree& t) {
  t.device("pci0000:00", {"0000:00:01.1", "0000:01:00.0"}, true);
  t.device("pci0000:00", {"0000:00:03.1", "0000:02:00.0"}, true);
  for (const char* g : {"0000:01:00.0", "0000:02:00.0"}) t.config(g, ConfigBuilder().pcie(5, 16, 5, 16).bytes());
  t.iommu_group("0000:01:00.0", 30, "identity");
  t.iommu_group("0000:02:00.0", 31, "identity");
  t.cmdline("ro iommu=pt");
}

TEST(DoctorAcsRules, PassthroughWithLinuxDefaultBitsSlowsNeverHangs) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  for (const char* b : {"0000:00:01.1", "0000:02:00.0", "0000:02:01.0"}) t.config(b, port_with_acs(kLinuxDefault));
  const auto checks = run_checks(host_inputs(t.root()));
  const Check& acs = checks.front();
  EXPECT_EQ(acs.summary, "3 of 4 bridges redirect peer traffic");
  const Item* root = item(acs, "0000:00:01.1");
  EXPECT_EQ(root->verdict, Verdict::ok) << dump(acs);
  EXPECT_TRUE(has(root->read, "no GPU pair's peer traffic crosses this port")) << root->read;
  const Item* down = item(acs, "0000:02:01.0");
  EXPECT_EQ(down->verdict, Verdict::slows) << dump(acs);
  EXPECT_TRUE(has(down->read, "GPU0-GPU1: slower, no hang: their peer traffic leaves the switch")) << down->read;
  EXPECT_TRUE(has(down->read, "the p2p check's functional test fails")) << down->read;  // points there, no guess
  EXPECT_TRUE(has(down->fix, "sudo setpci -s 0000:02:01.0 106.w=0000")) << down->fix;
  EXPECT_FALSE(has(down->fix, "iommu=pt")) << down->fix;  // it is on already
  EXPECT_EQ(checks[1].verdict(), Verdict::ok) << dump(checks[1]);  // the iommu check agrees
  const Verdict w = worst(checks);
  EXPECT_NE(w, Verdict::may_hang);
  EXPECT_TRUE(exit_code(w) == 0 || exit_code(w) == kExitSlows) << exit_code(w);
  EXPECT_TRUE(hang_risks(t.root()).empty());  // `run` prints no banner
}

TEST(DoctorAcsRules, TranslatingWithRedirectBetweenTwoGpusMayHang) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.config("0000:02:01.0", ConfigBuilder().pcie(5, 16, 5, 16).acs(kLinuxDefault, /*after_another=*/true).bytes());
  for (const char* g : {"20", "21"}) t.file(std::string("sys/kernel/iommu_groups/") + g + "/type", "DMA-FQ");
  const auto checks = run_checks(host_inputs(t.root()));
  const Item* port = item(checks.front(), "0000:02:01.0");
  EXPECT_EQ(port->verdict, Verdict::may_hang) << dump(checks.front());
  EXPECT_TRUE(has(port->read, "GPU0-GPU1: redirected peer requests reach the IOMMU")) << port->read;
  EXPECT_TRUE(has(port->fix, "sudo setpci -s 0000:02:01.0 14e.w=0000")) << port->fix;
  EXPECT_TRUE(has(port->fix, "or boot with iommu=pt")) << port->fix;
  EXPECT_EQ(exit_code(worst(checks)), kExitMayHang);
  const auto lines = hang_risks(t.root());
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(has(lines[0], "may hang (acs): 0000:02:01.0")) << lines[0];
}

TEST(DoctorAcsRules, RootPortsOnlyGpusOnDifferentRootPortsIdentityIsOkAndSaysWhy) {
  BoxTree t;
  two_root_ports(t);
  for (const char* b : {"0000:00:01.1", "0000:00:03.1"}) t.config(b, port_with_acs(kLinuxDefault));
  const Inputs in = host_inputs(t.root());
  ASSERT_EQ(in.topo.gpus.size(), 2u);
  const Check acs = check_acs(in);
  EXPECT_EQ(acs.verdict(), Verdict::ok) << dump(acs);
  EXPECT_EQ(acs.summary, "2 of 2 bridges redirect peer traffic");
  for (const Item& i : acs.items) {
    EXPECT_TRUE(has(i.read, "GPU0-GPU1: ok: their peer traffic crosses the root complex anyway")) << i.read;
    EXPECT_EQ(i.fix, "");
  }
  const auto checks = run_checks(in);
  EXPECT_EQ(checks[1].verdict(), Verdict::ok) << dump(checks[1]);  // iommu
  EXPECT_NE(worst(checks), Verdict::may_hang);
  // The same ports with GPU1's domain translating: the route crosses both ports, and it may hang.
  t.file("sys/kernel/iommu_groups/31/type", "DMA");
  EXPECT_EQ(check_acs(host_inputs(t.root())).verdict(), Verdict::may_hang);
  // With the mode unreadable, the port says it could not tell.
  std::filesystem::remove(t.root() / "sys/kernel/iommu_groups/31/type");
  const Check untold = check_acs(host_inputs(t.root()));
  EXPECT_EQ(untold.verdict(), Verdict::unknown) << dump(untold);
  EXPECT_TRUE(has(item(untold, "0000:00:01.1")->read, "could not be read (see the iommu check)")) << dump(untold);
}

// Each redirect bit alone makes a port redirect: dropping one from kAcsRedirectBits fails its case.
class DoctorAcsRedirectBit : public ::testing::TestWithParam<std::uint16_t> {};

TEST_P(DoctorAcsRedirectBit, AloneMakesThePortBetweenTheGpusRedirect) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.config("0000:02:00.0", port_with_acs(GetParam()));
  Check acs = check_acs(host_inputs(t.root()));
  EXPECT_EQ(item(acs, "0000:02:00.0")->verdict, Verdict::slows) << dump(acs);  // identity: slower
  EXPECT_EQ(acs.summary, "1 of 4 bridges redirect peer traffic");
  t.file("sys/kernel/iommu_groups/20/type", "DMA");
  acs = check_acs(host_inputs(t.root()));
  EXPECT_EQ(item(acs, "0000:02:00.0")->verdict, Verdict::may_hang) << dump(acs);
}

INSTANTIATE_TEST_SUITE_P(EachBit, DoctorAcsRedirectBit,
                         ::testing::Values(kAcsReqRedir, kAcsCmpltRedir, kAcsEgressCtrl),
                         [](const auto& bit) {
                           return bit.param == kAcsReqRedir     ? std::string("ReqRedir")
                                  : bit.param == kAcsCmpltRedir ? std::string("CmpltRedir")
                                                                : std::string("EgressCtrl");
                         });

TEST(DoctorAcsRules, NoOtherBitRedirects) {
  for (const std::uint16_t bit : {kAcsSrcValid, kAcsTransBlk, kAcsUpstreamFwd, kAcsDirectTrans})
    EXPECT_EQ(bit & kAcsRedirectBits, 0) << bit;
}

// An NVIDIA-like chain that goes backwards (0x100 -> 0x258 -> 0x128), with ACS at its end.
ConfigBuilder backward_chain() {
  ConfigBuilder c;
  c.pcie(5, 16, 5, 16);
  c.put32(0x100, 0x0001 | (1u << 16) | (0x258u << 20));  // AER, next 0x258
  c.put32(0x258, 0x001E | (1u << 16) | (0x128u << 20));  // L1 PM Substates, next 0x128 (backwards)
  c.put32(0x128, 0x000D | (1u << 16));                   // ACS, next 0
  c.put16(0x12C, 0x005F);
  c.put16(0x12E, kLinuxDefault);
  return c;
}

TEST(DoctorAcsRules, ABackwardChainThatHoldsAcsIsFound) {
  const AcsReading r = read_acs(ConfigSpace{backward_chain().bytes(), {}});
  ASSERT_EQ(r.found, Found::yes) << r.why;
  EXPECT_EQ(r.offset, 0x128);
  EXPECT_EQ(r.control, kLinuxDefault);
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.config("0000:02:00.0", backward_chain().bytes());
  t.file("sys/kernel/iommu_groups/20/type", "DMA");
  const Check acs = check_acs(host_inputs(t.root()));
  EXPECT_EQ(item(acs, "0000:02:00.0")->verdict, Verdict::may_hang) << dump(acs);
  EXPECT_TRUE(has(item(acs, "0000:02:00.0")->fix, "setpci -s 0000:02:00.0 12e.w=0000")) << dump(acs);
}

TEST(DoctorAcsRules, EveryPlaceAndModeHasItsRule) {
  using P = PortPlace;
  using M = IommuMode;
  const std::tuple<P, M, Verdict, std::string_view> want[] = {
      {P::off_route, M::translating, Verdict::ok, "off_route"},
      {P::off_route, M::identity_or_off, Verdict::ok, "off_route"},
      {P::off_route, M::unknown, Verdict::ok, "off_route"},
      {P::meet_in_switch, M::translating, Verdict::may_hang, "translating"},
      {P::goes_up_anyway, M::translating, Verdict::may_hang, "translating"},
      {P::meet_in_switch, M::identity_or_off, Verdict::slows, "switch_identity"},
      {P::goes_up_anyway, M::identity_or_off, Verdict::ok, "root_identity"},
      {P::meet_in_switch, M::unknown, Verdict::slows, "switch_unknown"},
      {P::goes_up_anyway, M::unknown, Verdict::unknown, "root_unknown"},
  };
  for (const auto& [place, mode, verdict, id] : want) {
    const AcsRule& r = acs_rule(place, mode);
    EXPECT_EQ(r.id, id) << int(place) << " " << int(mode);
    EXPECT_EQ(r.verdict, verdict) << r.id;
    EXPECT_FALSE(r.source.empty()) << r.id << ": every rule names its source";
  }
}

TEST(DoctorAcsRules, WherePortsSitOnAPairsRoute) {
  BoxTree s;
  test::two_gpus_one_switch(s);
  const topo::Topology one = host_inputs(s.root()).topo;
  EXPECT_EQ(port_place(one, "0000:00:01.1", 0, 1), PortPlace::off_route);
  EXPECT_EQ(port_place(one, "0000:01:00.0", 0, 1), PortPlace::off_route);
  EXPECT_EQ(port_place(one, "0000:02:00.0", 0, 1), PortPlace::meet_in_switch);
  EXPECT_EQ(port_place(one, "0000:02:01.0", 0, 1), PortPlace::meet_in_switch);
  BoxTree r;
  two_root_ports(r);
  const topo::Topology two = host_inputs(r.root()).topo;
  EXPECT_EQ(port_place(two, "0000:00:01.1", 0, 1), PortPlace::goes_up_anyway);
  EXPECT_EQ(port_place(two, "0000:00:03.1", 0, 1), PortPlace::goes_up_anyway);
}

TEST(DoctorAcsRules, TheDocsTablesAreTheCodes) {
  expect_generated_section("docs/doctor.md",
                           "<!-- acs-rules-table: generated from bench/doctor/acs_rules.cpp; do not edit -->\n",
                           "<!-- acs-rules-table end -->", acs_rules_markdown());
  expect_generated_section("docs/troubleshooting.md",
                           "<!-- acs-rules-short: generated from bench/doctor/acs_rules.cpp; do not edit -->\n",
                           "<!-- acs-rules-short end -->", acs_rules_short_markdown());
}

}  // namespace
}  // namespace arbench::doctor
