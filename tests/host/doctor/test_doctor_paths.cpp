// The checks of the data's paths and of the software (P2P as reported and as it works, NCCL's path
// per pair, known-bad releases), the exit codes, the report's table and JSON, and the lines
// `arbench run` prints first, on trees the tests build and on fixed NVML and peer-check answers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "box_fixture.hpp"
#include "doctor/checks.hpp"
#include "doctor/known_bad.hpp"
#include "doctor/report.hpp"
#include "doctor_checks.hpp"

namespace arbench::doctor {
namespace {

using test::BoxTree;
using test::ConfigBuilder;

const std::string kG0 = "0000:03:00.0", kG1 = "0000:04:00.0";

Inputs with_nvml(const BoxTree& t, int read, int write) {
  Inputs in = host_inputs(t.root());
  in.nvml.loaded = true;
  in.nvml.p2p[{kG0, kG1}] = {read, write};
  in.nvml.p2p[{kG1, kG0}] = {read, write};
  return in;
}

void functional(Inputs& in, PeerPath ab, PeerPath ba, const std::string& detail = {}) {
  in.functional.ran = true;
  in.functional.bus_ids = {kG0, kG1};
  in.functional.access = PeerAccess(2, "test", 0.2);
  in.functional.access.at(0, 1).path = ab;
  in.functional.access.at(1, 0).path = ba;
  in.functional.access.at(0, 1).detail = detail;
}

TEST(DoctorPaths, P2pReportedAndWorking) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  Inputs in = with_nvml(t, 0, 0);
  functional(in, PeerPath::ok, PeerPath::ok);
  const Check c = check_p2p(in);
  EXPECT_EQ(c.verdict(), Verdict::ok) << dump(c);
  EXPECT_EQ(item(c, "GPU0-GPU1")->read, "NVML read OK, write OK; check ok / ok");
}

TEST(DoctorPaths, P2pReportedButBrokenMayHang) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  Inputs in = with_nvml(t, 0, 0);
  functional(in, PeerPath::broken, PeerPath::ok, "a write through the mapping did not arrive within 200 ms");
  const Check c = check_p2p(in);
  EXPECT_EQ(c.verdict(), Verdict::may_hang) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->read, "reported as working, but the data did not arrive (a write")) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->fix, "NCCL_P2P_DISABLE=1"));
}

TEST(DoctorPaths, P2pTheDriverRefusesSlowsAndDisagreementsAreNamed) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  Inputs in = with_nvml(t, 2, 2);  // GPU_NOT_SUPPORTED (GeForce)
  Check c = check_p2p(in);
  EXPECT_EQ(c.verdict(), Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->read, "NVML read GPU_NOT_SUPPORTED, write GPU_NOT_SUPPORTED")) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->fix, "GeForce"));
  functional(in, PeerPath::ok, PeerPath::ok);
  c = check_p2p(in);
  EXPECT_EQ(item(c, "GPU0-GPU1")->verdict, Verdict::ok) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->read, "NVML disagrees with CUDA")) << dump(c);
  EXPECT_TRUE(has(c.summary, "0 not allowed by the driver, 1 disagreements")) << c.summary;
  Inputs other = with_nvml(t, 0, 0);
  functional(other, PeerPath::no_p2p, PeerPath::no_p2p);
  c = check_p2p(other);
  EXPECT_EQ(c.verdict(), Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->read, "NVML reports P2P, CUDA does not")) << dump(c);
}

TEST(DoctorPaths, P2pWithoutNvmlOrGpusSaysWhatItCouldNotRead) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  Inputs in = host_inputs(t.root());
  in.nvml.why = "libnvidia-ml.so.1 not found (NVML is optional)";
  in.functional.why = "no CUDA device";
  const Check c = check_p2p(in);
  EXPECT_EQ(c.verdict(), Verdict::unknown) << dump(c);
  EXPECT_EQ(item(c, "NVML")->read, "not loaded: libnvidia-ml.so.1 not found (NVML is optional); the driver's view is unknown");
  EXPECT_EQ(item(c, "functional check")->read, "not run: no CUDA device");
  EXPECT_EQ(item(c, "GPU0-GPU1")->read, "NVML: unknown");
}

// Two GPUs on two host bridges of one NUMA node (NODE), an Intel CPU: NCCL's default level PXB
// sends the pair through host memory; PHB would let it use P2P.
void two_root_complexes(BoxTree& t) {
  t.device("pci0000:00", {"0000:00:01.1", "0000:01:00.0"}, true);
  t.device("pci0000:80", {"0000:80:01.1", "0000:81:00.0"}, true);
  t.cpuinfo("GenuineIntel");
}

TEST(DoctorPaths, NcclSendsPairsAcrossRootComplexesThroughHostMemory) {
  BoxTree t;
  two_root_complexes(t);
  Inputs in = host_inputs(t.root());
  Check c = check_nccl_path(in);
  EXPECT_EQ(c.verdict(), Verdict::slows) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->read, "NODE: through host memory at P2P level PXB (NCCL's default)")) << dump(c);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->fix, "export NCCL_P2P_LEVEL=PHB")) << dump(c);
  in.env["NCCL_P2P_LEVEL"] = "PHB";
  EXPECT_EQ(check_nccl_path(in).verdict(), Verdict::ok) << dump(check_nccl_path(in));
  in.env["NCCL_P2P_DISABLE"] = "1";
  c = check_nccl_path(in);
  EXPECT_EQ(c.verdict(), Verdict::slows);
  EXPECT_TRUE(has(item(c, "GPU0-GPU1")->fix, "unset NCCL_P2P_DISABLE")) << dump(c);
  // AMD with at most two GPUs: NCCL's default is SYS.
  t.cpuinfo("AuthenticAMD");
  EXPECT_EQ(check_nccl_path(host_inputs(t.root())).verdict(), Verdict::ok);
  // One switch: PIX, P2P at the default level.
  BoxTree s;
  test::two_gpus_one_switch(s);
  EXPECT_EQ(check_nccl_path(host_inputs(s.root())).summary, "0 of 1 pairs through host memory at level PXB (NCCL's default)");
}

TEST(DoctorPaths, KnownBadReleasesMatchWhatIsInstalled) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  Inputs in = host_inputs(t.root());
  in.stack.nccl = parse_version("2.26.2");
  Check c = check_known_bad(in);
  EXPECT_EQ(c.verdict(), Verdict::may_hang) << dump(c);
  const Item* nccl = item(c, "the engine's NCCL 2.26.2");
  ASSERT_NE(nccl, nullptr) << dump(c);
  EXPECT_TRUE(has(nccl->read, "illegal memory access")) << nccl->read;
  EXPECT_TRUE(has(nccl->read, "NVIDIA/nccl issue #2418")) << nccl->read;
  EXPECT_TRUE(has(nccl->fix, "2.31.2"));
  EXPECT_EQ(item(c, "the NVIDIA driver 580.95.05")->verdict, Verdict::ok) << dump(c);
  // An unverified entry never raises the verdict: it says it cannot tell. It lists the releases
  // tested, not the range between them.
  in.stack.nccl = parse_version("2.28.9");
  EXPECT_EQ(item(check_known_bad(in), "the engine's NCCL 2.28.9")->read, "no known-bad entry for this release");
  in.stack.nccl = parse_version("2.27.7");
  c = check_known_bad(in);
  EXPECT_EQ(item(c, "the engine's NCCL 2.27.7")->verdict, Verdict::unknown) << dump(c);
  EXPECT_TRUE(has(item(c, "the engine's NCCL 2.27.7")->read, "unverified")) << dump(c);
  in.stack.nccl = parse_version("2.31.2");
  c = check_known_bad(in);
  EXPECT_EQ(item(c, "the engine's NCCL 2.31.2")->read, "no known-bad entry for this release");
  in.stack.nccl.reset();
  EXPECT_TRUE(has(item(check_known_bad(in), "the engine's NCCL")->read, "give --nccl X.Y.Z or --python PATH"));
}

TEST(DoctorPaths, KnownBadEntriesNameTheirSource) {
  for (const KnownBad& k : known_bad()) {
    EXPECT_FALSE(k.source.repo.empty()) << k.id;
    EXPECT_FALSE(k.source.ref.empty()) << k.id;
    EXPECT_TRUE(parse_version(std::string(k.first)) && parse_version(std::string(k.last))) << k.id;
    EXPECT_TRUE(k.verified || !k.caveat.empty()) << k.id << ": an unverified entry says what is not verified";
  }
  const KnownBad& ima = known_bad().front();
  EXPECT_TRUE(affects(ima, *parse_version("2.26.2")));
  EXPECT_FALSE(affects(ima, *parse_version("2.26.3")));
  EXPECT_FALSE(affects(ima, *parse_version("2.31.2")));
  EXPECT_TRUE(has(known_bad_markdown(), "| nccl | 2.26.2 |"));
  EXPECT_TRUE(has(known_bad_markdown(), "| nccl | 2.26.5, 2.27.7, 2.29.2 |"));
}

TEST(DoctorPaths, ExitCodesAndTheWorstVerdict) {
  EXPECT_EQ(exit_code(Verdict::ok), 0);
  EXPECT_EQ(exit_code(Verdict::unknown), 0);
  EXPECT_EQ(exit_code(Verdict::slows), 4);
  EXPECT_EQ(exit_code(Verdict::may_hang), 5);
  Check a, b;
  a.add("x", Verdict::slows, "");
  b.add("y", Verdict::unknown, "");
  EXPECT_EQ(worst({a, b}), Verdict::slows);
  b.add("z", Verdict::may_hang, "");
  EXPECT_EQ(worst({a, b}), Verdict::may_hang);
  EXPECT_EQ(Check{}.verdict(), Verdict::unknown);  // a check that read nothing
}

TEST(DoctorPaths, ReportFitsAndItsJsonHasOneObjectPerCheck) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  t.config("0000:02:01.0", ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).bytes());
  t.file("sys/kernel/iommu_groups/20/type", "DMA");  // translating: the redirect between the GPUs may hang
  const auto checks = run_checks(host_inputs(t.root()));
  const std::string text = render_report(checks, "arbench doctor: test\n");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), 120u) << line;
  EXPECT_TRUE(has(text, "acs        may hang        1 of 4 bridges redirect peer traffic")) << text;
  EXPECT_TRUE(has(text, "Overall: may hang (exit 5)")) << text;
  EXPECT_TRUE(has(text, "fix: sudo setpci -s 0000:02:01.0 106.w=0000")) << text;
  const nlohmann::json j = report_to_json(checks, t.root().string());
  EXPECT_EQ(j["schema"], "arbench-doctor/1");
  EXPECT_EQ(j["exit_code"], 5);
  ASSERT_EQ(j["checks"].size(), 9u);
  std::vector<std::string> ids;
  for (const auto& c : j["checks"]) ids.push_back(c["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"acs", "iommu", "p2p", "links", "bar1", "driver", "nccl_path", "known_bad",
                                           "collapse"}));
  EXPECT_EQ(j["checks"][0]["verdict"], "may hang");
  EXPECT_EQ(j["checks"][0]["data"]["bridges"].size(), 4u);
  EXPECT_TRUE(j["findings"]["pull_beats_push"].is_null());
  EXPECT_EQ(pull_beats_push(j), std::nullopt);
}

TEST(DoctorPaths, RunPrintsHangRisksOnlyWhenThereAreAny) {
  BoxTree t;
  test::two_gpus_one_switch(t);
  EXPECT_TRUE(hang_risks(t.root()).empty());
  // A redirecting root port above both GPUs' switch, IOMMU in passthrough: their traffic never
  // crosses it, nothing may hang (Linux's default bits; the false alarm issue 57 removed).
  t.config("0000:00:01.1", ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).bytes());
  EXPECT_TRUE(hang_risks(t.root()).empty());
  t.file("sys/kernel/iommu_groups/20/type", "DMA");
  EXPECT_TRUE(hang_risks(t.root()).empty());  // translating, but still off the pair's route
  // The downstream port between the two GPUs redirecting into a translating IOMMU may hang.
  t.config("0000:02:01.0", ConfigBuilder().pcie(5, 16, 5, 16).acs(0x001d).bytes());
  const auto lines = hang_risks(t.root());
  ASSERT_EQ(lines.size(), 2u);  // the port, and the IOMMU that translates behind it
  EXPECT_TRUE(has(lines[0], "may hang (acs): 0000:02:01.0 (switch downstream port of GPU1): ACSCtl 0x001d")) << lines[0];
  EXPECT_TRUE(has(lines[1], "may hang (iommu): GPU0")) << lines[1];
  EXPECT_TRUE(hang_risks(t.root() / "nowhere").empty());
}

}  // namespace
}  // namespace arbench::doctor

namespace arbench::doctor {
namespace {

// docs/doctor.md's table is the one generated from the catalogue (ARBENCH_UPDATE_GOLDEN=1 rewrites
// it, for a deliberate change: review the diff).
TEST(DoctorPaths, TheDocsTableIsGeneratedFromTheCatalogue) {
  expect_generated_section("docs/doctor.md",
                           "<!-- known-bad-table: generated from bench/doctor/known_bad.cpp; do not edit -->\n",
                           "<!-- known-bad-table end -->", known_bad_markdown());
}

}  // namespace
}  // namespace arbench::doctor
