// Peers from the command line (docs/variants.md, "Peers"): `arbench list` names every peer and
// each configuration, available or with why not (in a build without them: the configure step's
// reason, which says how to turn them on); the default sweep leaves out peers not built; a
// configuration that is no peer's is refused (exit 2); `--version` says which peers are built.
#include <gtest/gtest.h>

#include <string>

#include "arbench/core/peers.hpp"
#include "cli_util.hpp"
#include "tests/host/text_checks.hpp"

namespace {

const char* const kPeerNames[] = {"flashinfer-pcie-ipc", "flashinfer-pcie-ipc[unstaged]", "flashinfer-pcie-ipc[staged]",
                                  "flashinfer-pcie-ipc[staged-ring]", "flashinfer-pcie-ipc[flat-staged]",
                                  "vllm-custom", "vllm-custom[1stage]", "vllm-custom[2stage]", "flashinfer-fused",
                                  "flashinfer-fused[vllm]", "flashinfer-fused[flashinfer]", "flashinfer-fused[oneshot]",
                                  "flashinfer-fused[twoshot]"};

// The catalogue line of `name` in `out` (the line that starts with it after the family), joined
// with its continuation lines.
std::string catalogue_line(const std::string& out, const std::string& name) {
  const std::string flat = unwrap_catalogue(unwrap_errors(out));
  std::size_t at = 0;
  while ((at = flat.find(" " + name + " ", at)) != std::string::npos) {
    const std::size_t start = flat.rfind('\n', at) + 1;
    if (flat.compare(start, 4, "#   ") == 0) {
      std::string line;
      for (std::size_t end = flat.find('\n', start), from = start; end != std::string::npos;
           from = end + 1, end = flat.find('\n', from)) {
        const std::string l = flat.substr(from, end - from);
        if (from != start && l.rfind("#    ", 0) != 0) break;  // the next entry
        line += l + " ";
      }
      return line;
    }
    ++at;
  }
  return {};
}

}  // namespace

TEST(CliPeers, ListNamesEveryPeerAndConfigurationWithWhyNot) {
  const CliResult r = run_arbench("list --backend host --gpus 2 -b 1K -e 1K --variants reference");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const bool built = arbench::peer_build().built("flashinfer-pcie-ipc");
  for (const char* name : kPeerNames) {
    const std::string line = catalogue_line(r.raw, name);
    ASSERT_FALSE(line.empty()) << name << " is not in the catalogue:\n" << r.output;
    EXPECT_NE(line.find("[not on host: "), std::string::npos) << line;
    const std::string n = name;
    if (!built && n.find('[') == std::string::npos && n.rfind("flashinfer", 0) == 0) {
      EXPECT_NE(line.find("-DARBENCH_FLASHINFER_DIR="), std::string::npos) << "the reason says how to turn peers on: " << line;
    }
    if (!built && n.find('[') != std::string::npos) {
      EXPECT_NE(line.find("not built (as `" + n.substr(0, n.find('[')) + "`)"), std::string::npos) << line;
    }
  }
  EXPECT_NE(catalogue_line(r.raw, "flashinfer-pcie-ipc[staged-ring]").find("FlashInfer's staged-ring schedule forced"),
            std::string::npos);
  // The fusion as each engine runs it: vLLM's rule named, FlashInfer's own rule labelled.
  EXPECT_NE(catalogue_line(r.raw, "flashinfer-fused[vllm]").find("vLLM's use_oneshot rule, PDL on"), std::string::npos);
  EXPECT_NE(catalogue_line(r.raw, "flashinfer-fused[flashinfer]").find("FlashInfer's own rule"), std::string::npos);
}

TEST(CliPeers, DefaultSweepLeavesOutPeersNotBuilt) {
  const CliResult r = run_arbench("list --backend host --gpus 2 -b 1K -e 1K --family allreduce");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const bool built = arbench::peer_build().built("flashinfer-pcie-ipc");
  const bool listed = r.raw.find("allreduce/flashinfer-pcie-ipc/") != std::string::npos;
  EXPECT_EQ(listed, built) << r.output;
}

TEST(CliPeers, ANamedPeerIsSkippedWithItsReasonAndAnUnknownConfigurationRefused) {
  CliResult r = run_arbench("list --backend host --gpus 2 -b 1K -e 1K --variants 'flashinfer-pcie-ipc[staged],vllm-custom'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.raw.find("allreduce/flashinfer-pcie-ipc[staged]/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos)
      << r.output;
  EXPECT_NE(r.raw.find("allreduce/vllm-custom/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos) << r.output;
  r = run_arbench("list --backend host --gpus 2 -b 1K -e 1K --variants 'flashinfer-pcie-ipc[ring]'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown variant 'flashinfer-pcie-ipc[ring]'"), std::string::npos) << r.output;
}

TEST(CliPeers, VersionSaysWhichPeersAreBuilt) {
  const CliResult r = run_arbench("--version");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (arbench::peer_build().sources.empty()) {
    EXPECT_NE(r.output.find("peers: none built"), std::string::npos) << r.output;
  } else {
    EXPECT_NE(r.output.find("peers built from:\n  FlashInfer "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("flashinfer-pcie-ipc: "), std::string::npos) << r.output;
  }
}

// --peer-workspace (the engine's largest batch for FlashInfer's PCIe-IPC workspace): checked before
// any work, refused where no flashinfer-pcie-ipc case is in the sweep, and recorded in the config.
TEST(CliPeers, PeerWorkspaceCheckedAndScoped) {
  for (const char* bad : {"0", "-1", "8X", "32G"}) {
    const CliResult r = run_arbench(std::string("list --backend host --gpus 2 -b 1K -e 1K --variants flashinfer-pcie-ipc "
                                                "--peer-workspace ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("--peer-workspace"), std::string::npos) << r.output;
  }
  CliResult r = run_arbench("list --backend host --gpus 2 -b 1K -e 1K --variants oneshot-push --peer-workspace 1M");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--peer-workspace sizes the workspace of the peer flashinfer-pcie-ipc"), std::string::npos)
      << r.output;
  r = run_arbench("list --backend host --gpus 2 -b 1K -e 1K --variants flashinfer-pcie-ipc --peer-workspace 1M");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The peers' floors in a dry run say where their waits come from: counted in the kernel's PTX where
// this build compiled the peer (scripts/peer_waits.py at build time), else written from its code.
TEST(CliPeers, DryRunSaysWhetherAPeersWaitsWereCountedInItsPtx) {
  const CliResult r = run_arbench("run --dry-run --links " ARBENCH_SOURCE_DIR
                                  "/results/reference/links-rtx6kpro-8x.json --gpus 8 -b 1M -e 1M "
                                  "--variants 'flashinfer-pcie-ipc[unstaged],vllm-custom[1stage]'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string flat = arbench::test::join_wrapped(r.raw);
  if (arbench::peer_build().built("flashinfer-pcie-ipc")) {
    EXPECT_NE(flat.find("counted in the peer's PTX (flashinfer-pcie-ipc/8/unstaged: "), std::string::npos) << flat;
  } else {
    EXPECT_NE(flat.find("flashinfer-pcie-ipc[unstaged] at 8 GPUs: 3 waits, written from the peer's code"),
              std::string::npos)
        << flat;
  }
  if (arbench::peer_build().built("vllm-custom")) {
    EXPECT_NE(flat.find("counted in the peer's PTX (vllm-custom/8/1stage: "), std::string::npos) << flat;
  }
}
