// The configuration-space readers on bytes laid out as the PCI Express Base Specification says
// (box_fixture.hpp's ConfigBuilder): ACS found at 0x100 and further down the list, its control
// bits, the PCI Express capability's link registers and ASPM; and every way a read falls short
// (a non-root read of 64 bytes, 256 bytes, a truncated file, a list that loops, no file) gives
// a reason, never a crash. A backward pointer is followed (test_acs_rules.cpp); only a loop ends the walk.
#include <gtest/gtest.h>

#include "box_fixture.hpp"
#include "doctor/sysfs/config_space.hpp"

namespace arbench::doctor {
namespace {

using test::BoxTree;
using test::ConfigBuilder;

ConfigSpace bytes(const std::vector<std::uint8_t>& b) { return ConfigSpace{b, {}}; }

TEST(DoctorConfigSpace, FindsAcsAtTheStartOfTheExtendedList) {
  const AcsReading r = read_acs(bytes(ConfigBuilder().acs(0x001d).bytes()));
  ASSERT_EQ(r.found, Found::yes) << r.why;
  EXPECT_EQ(r.offset, 0x100);
  EXPECT_EQ(r.control, 0x001d);
  EXPECT_NE(r.control & kAcsRedirectBits, 0);
  EXPECT_EQ(acs_flags(r.control), "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
}

TEST(DoctorConfigSpace, FollowsTheListToAcs) {
  const AcsReading r = read_acs(bytes(ConfigBuilder().acs(0x0001, /*after_another=*/true).bytes()));
  ASSERT_EQ(r.found, Found::yes) << r.why;
  EXPECT_EQ(r.offset, 0x148);
  EXPECT_EQ(r.control, 0x0001);
  EXPECT_EQ(r.control & kAcsRedirectBits, 0);  // SrcValid alone redirects nothing
}

TEST(DoctorConfigSpace, NoExtendedCapabilityIsAbsentNotUnreadable) {
  const AcsReading r = read_acs(bytes(ConfigBuilder().pcie(5, 16, 5, 16).bytes()));
  EXPECT_EQ(r.found, Found::absent);
  EXPECT_EQ(r.why, "no extended capability");
}

TEST(DoctorConfigSpace, ShortReadsSayWhy) {
  const ConfigBuilder full = ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d);
  const AcsReading nonroot = read_acs(bytes(full.cut(64)));
  EXPECT_EQ(nonroot.found, Found::unreadable);
  EXPECT_NE(nonroot.why.find("64 bytes"), std::string::npos) << nonroot.why;
  EXPECT_NE(nonroot.why.find("without root"), std::string::npos) << nonroot.why;
  const AcsReading conventional = read_acs(bytes(full.cut(256)));
  EXPECT_EQ(conventional.found, Found::unreadable);
  EXPECT_NE(conventional.why.find("256 bytes"), std::string::npos) << conventional.why;
  const AcsReading truncated = read_acs(bytes(full.cut(0x104)));  // the header, not the control register
  EXPECT_EQ(truncated.found, Found::unreadable);
  EXPECT_NE(truncated.why.find("truncated"), std::string::npos) << truncated.why;
  // The PCI Express capability lies beyond 64 bytes too.
  const PcieCapReading cap = read_pcie_capability(bytes(full.cut(64)));
  EXPECT_EQ(cap.found, Found::unreadable);
  EXPECT_NE(cap.why.find("64 bytes"), std::string::npos) << cap.why;
  // Too short for even the capability pointer.
  EXPECT_EQ(read_pcie_capability(bytes(full.cut(16))).found, Found::unreadable);
}

TEST(DoctorConfigSpace, AListThatLoopsEnds) {
  ConfigBuilder c;
  c.put32(0x100, 0x000B | (0x100u << 20));  // a capability whose next is itself
  const AcsReading r = read_acs(bytes(c.bytes()));
  EXPECT_EQ(r.found, Found::unreadable);
  EXPECT_EQ(r.why, "the extended capability list loops: 0x100 points to 0x100, visited already (a broken device?)");
  // A loop through a backward pointer: 0x100 -> 0x200 -> 0x180 -> 0x200.
  ConfigBuilder back;
  back.put32(0x100, 0x000B | (0x200u << 20));
  back.put32(0x200, 0x000B | (0x180u << 20));
  back.put32(0x180, 0x000B | (0x200u << 20));
  EXPECT_EQ(read_acs(bytes(back.bytes())).why,
            "the extended capability list loops: 0x180 points to 0x200, visited already (a broken device?)");
  // Linux ends the list at a pointer below 0x100: no ACS there, said so.
  ConfigBuilder low;
  low.put32(0x100, 0x000B | (0x0F0u << 20));
  const AcsReading ended = read_acs(bytes(low.bytes()));
  EXPECT_EQ(ended.found, Found::absent);
  EXPECT_NE(ended.why.find("lies below 0x100"), std::string::npos) << ended.why;
  // Without a loop the walk stops after Linux's hop limit, (4096 - 256) / 8 = 480 capabilities.
  ConfigBuilder longest;
  for (std::uint32_t at = 0x100; at + 4 < 4096; at += 4) longest.put32(at, 0x000B | ((at + 4) << 20));
  const AcsReading cut = read_acs(bytes(longest.bytes()));
  EXPECT_EQ(cut.found, Found::unreadable);
  EXPECT_EQ(cut.why, "the extended capability list runs past 480 capabilities without ending");
  ConfigBuilder standard;
  standard.put16(0x40, 0x4001);  // a power-management capability whose next is itself
  EXPECT_EQ(read_pcie_capability(bytes(standard.bytes())).found, Found::absent);
}

TEST(DoctorConfigSpace, ReadsTheLinkRegistersAndAspm) {
  const PcieCapReading r = read_pcie_capability(bytes(ConfigBuilder().pcie(5, 16, 3, 8, 2, 4).bytes()));
  ASSERT_EQ(r.found, Found::yes) << r.why;
  EXPECT_EQ(r.offset, 0x40);
  EXPECT_EQ(r.port_type, 4);  // root port
  EXPECT_EQ(r.max.generation(), 5);
  EXPECT_EQ(r.max.width, 16);
  EXPECT_EQ(r.current.generation(), 3);
  EXPECT_EQ(r.current.width, 8);
  EXPECT_EQ(r.aspm, 2);
  EXPECT_STREQ(aspm_name(r.aspm), "L1");
  ConfigBuilder none;
  none.put16(0x06, 0);  // no capability list
  EXPECT_EQ(read_pcie_capability(bytes(none.bytes())).found, Found::absent);
}

TEST(DoctorConfigSpace, FilesAsTheKernelGivesThem) {
  BoxTree t;
  t.device("pci0000:00", {"0000:00:01.1"}, false);
  t.config("0000:00:01.1", ConfigBuilder().acs(0x001d).cut(64));
  const ConfigSpace cs = read_config_space(t.dev("0000:00:01.1"));
  EXPECT_TRUE(cs.error.empty()) << cs.error;
  EXPECT_EQ(cs.bytes.size(), 64u);
  const ConfigSpace missing = read_config_space(t.root() / "nowhere");
  EXPECT_NE(missing.error.find("is missing"), std::string::npos) << missing.error;
  EXPECT_EQ(read_acs(missing).found, Found::unreadable);
  t.config("0000:00:01.1", {});
  EXPECT_NE(read_config_space(t.dev("0000:00:01.1")).error.find("empty"), std::string::npos);
}

TEST(DoctorConfigSpace, LspciAcsCtlLine) {
  const std::string out =
      "00:01.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge\n"
      "\tCapabilities: [2a0 v1] Access Control Services\n"
      "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+\n"
      "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n";
  EXPECT_EQ(parse_lspci_acsctl(out), 0x001d);
  EXPECT_EQ(parse_lspci_acsctl("00:01.1 PCI bridge\n\tCapabilities: <access denied>\n"), std::nullopt);
}

}  // namespace
}  // namespace arbench::doctor
