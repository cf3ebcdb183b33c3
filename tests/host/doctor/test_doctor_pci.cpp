// The checks that read the PCIe side of the box (ACS, IOMMU, links, BAR1, driver) on trees the
// tests build: the clean box, then each finding, and what a non-root read, a missing file or a
// missing folder give (a line that says so, never a crash).
#include <gtest/gtest.h>

#include "box_fixture.hpp"
#include "doctor/checks.hpp"
#include "doctor_checks.hpp"

namespace arbench::doctor {
namespace {

using test::BoxTree;
using test::ConfigBuilder;

TEST(DoctorPci, CleanBoxIsOkEverywhere) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  const Inputs in = host_inputs(t.root());
  ASSERT_EQ(in.topo.gpus.size(), 2u);
  for (const Check& c : {check_acs(in), check_iommu(in, false), check_links(in), check_bar1(in), check_nccl_path(in)})
    EXPECT_EQ(c.verdict(), Verdict::ok) << dump(c);
  // Without NVML the persistence mode is not known; nothing of the driver slows.
  EXPECT_EQ(check_driver(in).verdict(), Verdict::unknown) << dump(check_driver(in));
  const Check acs = check_acs(in);
  EXPECT_EQ(acs.summary, "0 of 4 bridges redirect peer traffic");
  EXPECT_TRUE(has(item(acs, "0000:01:00.0")->read, "no ACS capability")) << dump(acs);
  EXPECT_TRUE(has(item(check_iommu(in, false), "GPU0")->read, "identity (passthrough)"));
  EXPECT_TRUE(has(item(check_driver(in), "NVIDIA driver")->read, "580.95.05 (open kernel module)"));
}

TEST(DoctorPci, AcsRedirectMayHangWithTheSetpciLineForThatPort) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.file("sys/kernel/iommu_groups/21/type", "DMA-FQ");  // GPU1's domain translates
  t.config("0000:02:01.0", ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d, /*after_another=*/true).bytes());
  const Check acs = check_acs(host_inputs(t.root()));
  EXPECT_EQ(acs.verdict(), Verdict::may_hang) << dump(acs);
  const Item* port = item(acs, "0000:02:01.0");
  ASSERT_NE(port, nullptr) << dump(acs);
  EXPECT_EQ(port->subject, "0000:02:01.0 (switch downstream port of GPU1)");
  EXPECT_TRUE(has(port->read, "ACSCtl 0x001d: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+")) << port->read;
  EXPECT_TRUE(has(port->fix, "sudo setpci -s 0000:02:01.0 14e.w=0000")) << port->fix;  // ACS at 0x148, control +6
  EXPECT_TRUE(has(port->fix, "pci=disable_acs_redir=0000:02:01.0")) << port->fix;
  EXPECT_EQ(item(acs, "0000:02:00.0")->verdict, Verdict::ok);
  EXPECT_EQ(acs.summary, "1 of 4 bridges redirect peer traffic");
}

TEST(DoctorPci, NonRootReadSaysSoAndUsesLspciWhenItCan) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  for (const char* b : {"0000:00:01.1", "0000:01:00.0", "0000:02:00.0", "0000:02:01.0"})
    t.config(b, ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).cut(64));
  Inputs in = host_inputs(t.root());
  const Check without = check_acs(in);
  EXPECT_EQ(without.verdict(), Verdict::unknown) << dump(without);
  EXPECT_TRUE(has(item(without, "0000:00:01.1")->read, "64 bytes")) << dump(without);
  EXPECT_TRUE(has(item(without, "0000:00:01.1")->fix, "sudo arbench doctor"));
  EXPECT_TRUE(has(without.summary, "4 not readable, 4 of them without root")) << without.summary;
  in.lspci = [](const std::string& bdf) -> std::optional<std::string> {
    if (bdf != "0000:02:00.0") return std::string("\tCapabilities: <access denied>\n");
    return std::string("\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n");
  };
  const Check with = check_acs(in);
  EXPECT_EQ(with.verdict(), Verdict::slows) << dump(with);  // where the GPUs meet, IOMMU identity
  const Item* port = item(with, "0000:02:00.0");
  EXPECT_TRUE(has(port->read, "(lspci -vvv)")) << port->read;
  EXPECT_TRUE(has(port->fix, "setpci -s 0000:02:00.0 ECAP_ACS+6.w=0000")) << port->fix;
  EXPECT_TRUE(has(item(with, "0000:00:01.1")->read, "lspci -vvv shows no ACSCtl line")) << dump(with);
}

TEST(DoctorPci, MissingConfigFileAndMissingFolders) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  std::filesystem::remove(t.dev("0000:00:01.1") / "config");
  const Check acs = check_acs(host_inputs(t.root()));
  EXPECT_EQ(item(acs, "0000:00:01.1")->verdict, Verdict::unknown);
  EXPECT_TRUE(has(item(acs, "0000:00:01.1")->read, "is missing")) << dump(acs);
  EXPECT_EQ(item(acs, "0000:00:01.1")->fix, "");  // root would not help
  EXPECT_EQ(acs.summary, "0 of 4 bridges redirect peer traffic (1 not readable)");
  // A root with nothing below it: every check runs and says what it could not read.
  const Inputs empty = host_inputs(t.root() / "no-such-folder");
  for (const Check& c : run_checks(empty)) {
    EXPECT_NE(c.verdict(), Verdict::slows) << dump(c);
    EXPECT_NE(c.verdict(), Verdict::may_hang) << dump(c);
    EXPECT_FALSE(c.items.empty()) << c.id;
  }
  EXPECT_TRUE(has(check_acs(empty).items.front().read, "no NVIDIA GPU under")) << dump(check_acs(empty));
}

TEST(DoctorPci, IommuTranslatingSlowsAndWithAcsRedirectMayHang) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.file("sys/kernel/iommu_groups/20/type", "DMA-FQ");
  t.cmdline("BOOT_IMAGE=/vmlinuz ro amd_iommu=on");
  const Inputs in = host_inputs(t.root());
  const Check alone = check_iommu(in, false);
  EXPECT_EQ(alone.verdict(), Verdict::slows) << dump(alone);
  EXPECT_TRUE(has(item(alone, "GPU0")->read, "IOMMU group 20: DMA-FQ (translating)")) << dump(alone);
  EXPECT_TRUE(has(item(alone, "GPU0")->fix, "iommu=pt"));
  EXPECT_TRUE(has(alone.summary, "translating (DMA) for 1 of 2 GPUs; amd_iommu=on")) << alone.summary;
  EXPECT_EQ(check_iommu(in, true).verdict(), Verdict::may_hang);
  // run_checks hands the ACS verdict to the IOMMU check: the downstream port between the GPUs.
  t.config("0000:02:00.0", ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).bytes());
  const auto all = run_checks(host_inputs(t.root()));
  EXPECT_EQ(all[1].id, "iommu");
  EXPECT_EQ(all[1].verdict(), Verdict::may_hang) << dump(all[1]);
}

TEST(DoctorPci, IommuOffAndUnreadableType) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  std::filesystem::remove_all(t.root() / "sys/kernel/iommu_groups");
  for (const char* g : {"0000:03:00.0", "0000:04:00.0"}) std::filesystem::remove(t.dev(g) / "iommu_group");
  const Check off = check_iommu(host_inputs(t.root()), false);
  EXPECT_EQ(off.verdict(), Verdict::ok) << dump(off);
  EXPECT_TRUE(has(off.summary, "off (iommu=pt)")) << off.summary;
  BoxTree u;
  test::two_gpus_one_switch(u);
  std::filesystem::remove(u.root() / "sys/kernel/iommu_groups/21/type");
  const Check untold = check_iommu(host_inputs(u.root()), false);
  EXPECT_EQ(item(untold, "GPU1")->verdict, Verdict::unknown) << dump(untold);
  EXPECT_TRUE(has(item(untold, "GPU1")->read, "unreadable")) << dump(untold);
}

TEST(DoctorPci, LinksTrainedDownSlowIdleGen1DoesNot) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.link("0000:03:00.0", {"32.0 GT/s PCIe", "32.0 GT/s PCIe", 8, 16});  // x8 of x16
  t.link("0000:04:00.0", {"2.5 GT/s PCIe", "32.0 GT/s PCIe", 16, 16});  // idle
  t.link("0000:01:00.0", {"8.0 GT/s PCIe", "32.0 GT/s PCIe", 16, 16});  // switch uplink at Gen3
  const Check c = check_links(host_inputs(t.root()));
  EXPECT_EQ(c.verdict(), Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0")->read, "trained to x8 of x16")) << dump(c);
  EXPECT_EQ(item(c, "GPU1")->verdict, Verdict::ok) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU1")->read, "idle GPU drops its link to Gen1"));
  EXPECT_EQ(item(c, "0000:01:00.0")->verdict, Verdict::slows);
  EXPECT_TRUE(has(item(c, "0000:01:00.0")->read, "trained to Gen3 of Gen5")) << dump(c);
}

TEST(DoctorPci, AspmOnALinkAndASavingPolicySlow) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.config("0000:03:00.0", ConfigBuilder().pcie(5, 16, 5, 16, /*aspm=*/2).bytes());
  t.module_parameter("pcie_aspm", "policy", "default performance powersave [powersupersave]");
  t.cmdline("ro pcie_port_pm=off");
  const Check c = check_links(host_inputs(t.root()));
  EXPECT_EQ(item(c, "GPU0")->verdict, Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0")->read, "ASPM L1")) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU1")->read, "ASPM disabled")) << dump(c);
  EXPECT_EQ(item(c, "ASPM policy")->verdict, Verdict::slows);
  EXPECT_EQ(item(c, "ASPM policy")->read, "powersupersave");
  EXPECT_EQ(item(c, "pcie_port_pm")->read, "pcie_port_pm=off on the kernel command line");
}

TEST(DoctorPci, PortBelowTheGpusGenerationCapsIt) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.link("0000:02:00.0", {"16.0 GT/s PCIe", "16.0 GT/s PCIe", 16, 16});
  const Check c = check_links(host_inputs(t.root()));
  EXPECT_EQ(item(c, "GPU0")->verdict, Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0")->read, "the port above (0000:02:00.0) tops out at Gen4")) << dump(c);
}

// Each link is judged against the lower of its two ends' maxima (issue 57): a Gen5 root port over
// a Gen4 switch is at its link's top, and says which end limits it.
TEST(DoctorPci, AGen5PortOverAGen4DeviceIsOkAndNamesTheEndThatLimits) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.link("0000:00:01.1", {"16.0 GT/s PCIe", "32.0 GT/s PCIe", 16, 16});  // Gen5 root port, trained Gen4
  t.link("0000:01:00.0", {"16.0 GT/s PCIe", "16.0 GT/s PCIe", 16, 16});  // the Gen4 switch below it
  Check c = check_links(host_inputs(t.root()));
  const Item* root = item(c, "0000:00:01.1");
  EXPECT_EQ(root->verdict, Verdict::ok) << dump(c);
  EXPECT_TRUE(has(root->read, "limited by the device's Gen4 (0000:01:00.0, the link's other end)")) << dump(c);
  EXPECT_EQ(root->fix, "");
  EXPECT_EQ(item(c, "0000:01:00.0")->verdict, Verdict::ok) << dump(c);
  EXPECT_EQ(c.verdict(), Verdict::ok) << dump(c);
  // A x8 switch uplink under a x16 root port: limited by the device's x8, not trained down.
  t.link("0000:00:01.1", {"32.0 GT/s PCIe", "32.0 GT/s PCIe", 8, 16});
  t.link("0000:01:00.0", {"32.0 GT/s PCIe", "32.0 GT/s PCIe", 8, 8});
  c = check_links(host_inputs(t.root()));
  EXPECT_EQ(item(c, "0000:00:01.1")->verdict, Verdict::ok) << dump(c);
  EXPECT_TRUE(has(item(c, "0000:00:01.1")->read, "limited by the device's x8")) << dump(c);
  // The switch upstream port's other end is the port above: Gen4 of a Gen4 root port is its top.
  t.link("0000:00:01.1", {"16.0 GT/s PCIe", "16.0 GT/s PCIe", 16, 16});
  t.link("0000:01:00.0", {"16.0 GT/s PCIe", "32.0 GT/s PCIe", 16, 16});
  c = check_links(host_inputs(t.root()));
  EXPECT_EQ(item(c, "0000:01:00.0")->verdict, Verdict::ok) << dump(c);
  EXPECT_TRUE(has(item(c, "0000:01:00.0")->read, "limited by the port's Gen4 (0000:00:01.1")) << dump(c);
  // Below both ends' maxima is still a link trained down.
  t.link("0000:01:00.0", {"8.0 GT/s PCIe", "32.0 GT/s PCIe", 16, 16});
  c = check_links(host_inputs(t.root()));
  EXPECT_EQ(item(c, "0000:01:00.0")->verdict, Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "0000:01:00.0")->read, "trained to Gen3 of Gen4")) << dump(c);
}

TEST(DoctorPci, AGpuInANarrowerSlotSlows) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.link("0000:02:00.0", {"32.0 GT/s PCIe", "32.0 GT/s PCIe", 8, 8});  // a x8 port above a x16 GPU
  t.link("0000:03:00.0", {"32.0 GT/s PCIe", "32.0 GT/s PCIe", 8, 16});
  const Check c = check_links(host_inputs(t.root()));
  EXPECT_EQ(item(c, "GPU0")->verdict, Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0")->read, "the port above (0000:02:00.0) has x8 of the GPU's x16")) << dump(c);
  EXPECT_EQ(item(c, "GPU0")->fix, "move the GPU to a slot whose port runs at x16");
}

TEST(DoctorPci, SmallBar1Slows) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.resource("0000:03:00.0", 256ull << 20);
  Inputs in = host_inputs(t.root());
  Check c = check_bar1(in);
  EXPECT_EQ(item(c, "GPU0")->verdict, Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0")->read, "BAR1 256 MiB (sysfs), memory unknown")) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0")->fix, "Resizable BAR"));
  EXPECT_EQ(item(c, "GPU1")->verdict, Verdict::ok);
  // With NVML's memory size: 128 GiB of BAR1 covers 96 GiB; 64 GiB does not.
  in.nvml.gpus["0000:04:00.0"].memory_bytes = 96ull << 30;
  EXPECT_EQ(item(check_bar1(in), "GPU1")->verdict, Verdict::ok);
  t.resource("0000:04:00.0", 64ull << 30);
  in = host_inputs(t.root());
  in.nvml.gpus["0000:04:00.0"].memory_bytes = 96ull << 30;
  EXPECT_EQ(item(check_bar1(in), "GPU1")->verdict, Verdict::slows);
  std::filesystem::remove(t.dev("0000:04:00.0") / "resource");
  EXPECT_EQ(item(check_bar1(host_inputs(t.root())), "GPU1")->verdict, Verdict::unknown);
}

TEST(DoctorPci, DriverHmmAndPersistence) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  Inputs in = host_inputs(t.root());
  Check c = check_driver(in);
  EXPECT_TRUE(has(item(c, "nvidia_uvm")->read, "HMM on")) << dump(c);
  EXPECT_TRUE(has(item(c, "nvidia_uvm")->fix, "uvm_disable_hmm=1"));
  EXPECT_EQ(item(c, "GPU0 persistence")->verdict, Verdict::unknown);  // NVML absent
  EXPECT_TRUE(has(item(c, "GPU0 persistence")->read, "NVML not loaded"));
  in.nvml.loaded = true;
  in.nvml.gpus["0000:03:00.0"].persistence = false;
  c = check_driver(in);
  EXPECT_TRUE(has(item(c, "GPU0 persistence")->fix, "nvidia-smi -pm 1")) << dump(c);
  t.module_parameter("nvidia_uvm", "uvm_disable_hmm", "Y");
  EXPECT_EQ(item(check_driver(host_inputs(t.root())), "nvidia_uvm")->read, "Y: HMM off");
  std::filesystem::remove_all(t.root() / "sys/module/nvidia_uvm");
  std::filesystem::remove_all(t.root() / "sys/module/nvidia");
  c = check_driver(host_inputs(t.root()));
  EXPECT_EQ(item(c, "nvidia_uvm")->verdict, Verdict::unknown);
  EXPECT_EQ(item(c, "NVIDIA driver")->verdict, Verdict::unknown);
}

}  // namespace
}  // namespace arbench::doctor
