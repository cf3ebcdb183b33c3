// `arbench run --dry-run --links FILE` (bench/run/run_dry.hpp): every case priced on a saved links
// file without a GPU, and every option that cannot be priced refused before any work.
#include <gtest/gtest.h>

#include <sstream>

#include "arbench/core/errors.hpp"
#include "kernels/peers/peer_traffic.hpp"
#include "kernels/ring/ring_variant.hpp"
#include "kernels/symm/symm_variant.hpp"
#include "run/dry/run_dry.hpp"
#include "tests/host/text_checks.hpp"

using namespace arbench;

namespace {

const std::string kSwitchPairs = std::string(ARBENCH_SOURCE_DIR) + "/results/reference/links-flashinfer-4870-switch-pairs.json";

Registry two_variants() {
  Registry r;
  VariantEntry ring;
  ring.name = "ring";
  ring.traffic = &ring_traffic;
  ring.gpu = [] { return std::unique_ptr<Variant>(); };  // never made: a dry run runs nothing
  r.add(ring);
  VariantEntry pull;
  pull.name = "oneshot-pull";
  pull.traffic = &oneshot_pull_traffic;
  r.add(pull);
  return r;
}

RunConfig dry(const std::string& links) {
  RunConfig cfg;
  cfg.dry_run = true;
  cfg.links_file = links;
  cfg.gpus = {4, 8};
  cfg.min_bytes = cfg.max_bytes = std::size_t(96) << 20;
  cfg.families = {Family::allreduce};
  return cfg;
}

std::string refusal(const RunConfig& cfg) {
  std::ostringstream out;
  try {
    run_dry(cfg, out, two_variants());
  } catch (const UsageError& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_TRUE(out.str().empty()) << "printed before refusing: " << out.str();
    return e.what();
  }
  return "not refused";
}

}  // namespace

TEST(RunDry, PricesEveryCaseOnTheFileWithoutRunningIt) {
  std::ostringstream out;
  EXPECT_EQ(run_dry(dry(kSwitchPairs), out, two_variants()), kExitOk);
  const std::string text = out.str();
  // PR #4870's ring floors: 168 MiB at 49.64 GB/s at 8 ranks, 144 MiB at 52.32 at 4; the one-shot
  // needs all-pairs rates the PR did not publish: said, not invented.
  test::expect_contains_all(text, {"# dry run: 4 cases priced on", "floor 3548.766 us", "floor 2885.989 us",
                                   "no floor: one-shot", "w8 all-pairs pull was not measured", "no hop latency"});
  test::expect_lines_fit(text);
}

// A peer's waits come from its code as read here (no peers build): the dry run says so, with the
// count, beside the floor it prices (a peers build says "counted in the peer's PTX": CliPeers.*).
TEST(RunDry, SaysWhereAPeersWaitsComeFrom) {
  Registry r = two_variants();
  VariantEntry peer;
  peer.name = "flashinfer-pcie-ipc";
  peer.peer = "FlashInfer";
  peer.traffic = &flashinfer_pcie_ipc_traffic;
  peer.gpu = [] { return std::unique_ptr<Variant>(); };  // as if built: the default sweep has it
  r.add(peer);
  RunConfig cfg = dry(kSwitchPairs);
  cfg.gpus = {8};
  std::ostringstream out;
  EXPECT_EQ(run_dry(cfg, out, r), kExitOk);
  test::expect_contains_all(test::join_wrapped(out.str()), {"flashinfer-pcie-ipc at 8 GPUs: ", " waits, written from the peer's code as read"});
}

TEST(RunDry, RefusesWhatItCannotPriceBeforeAnyWork) {
  EXPECT_NE(refusal(dry("")).find("give --links FILE"), std::string::npos);
  RunConfig no_sol = dry(kSwitchPairs);
  no_sol.sol = false;
  EXPECT_NE(refusal(no_sol).find("--no-sol leaves nothing"), std::string::npos);
  RunConfig out = dry(kSwitchPairs);
  out.out_json = "r.json";
  EXPECT_NE(refusal(out).find("drop --out/--csv"), std::string::npos);
  RunConfig host = dry(kSwitchPairs);
  host.backend = "host";
  EXPECT_NE(refusal(host).find("--backend host has no floor"), std::string::npos);
  RunConfig many = dry(kSwitchPairs);
  many.gpus = {16};
  EXPECT_NE(refusal(many).find("holds rates for 8 GPUs"), std::string::npos) << refusal(many);
  RunConfig islands = dry(kSwitchPairs);
  islands.islands = "0-3";
  EXPECT_NE(refusal(islands), "not refused");
  const std::string no_patterns = std::string(ARBENCH_SOURCE_DIR) + "/results/reference/published-pcie-allreduce.json";
  EXPECT_NE(refusal(dry(no_patterns)).find("has no \"patterns\" object"), std::string::npos) << refusal(dry(no_patterns));
}
