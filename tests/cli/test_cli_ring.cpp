// `ring` and the nccl configurations from the command line (host backend): the ring's settings
// reach the JSON, a bad --ring-order is a usage error (exit 2) that names it, and
// `arbench list` shows each nccl configuration (skipped on the host, with the reason).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_util.hpp"

namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "arbench-ring-" + name + "-" + std::to_string(::getpid());
}

}  // namespace

TEST(CliRing, HostRunRecordsOrderChannelsAndChunk) {
  const std::string out = temp_path("r.json");
  CliResult r = run_arbench("run --backend host --variants ring --gpus 4 -b 64K -e 64K --samples 2 --warmup 1 "
                            "--pipelined-ops 2 --ring-order 0,2,3,1 --ring-channels 3 --ring-chunk 4K --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto& s = doc["arbench"]["cases"].at(0)["settings"];
  EXPECT_EQ(s["ring_order"], "0,2,3,1");
  EXPECT_EQ(s["ring_order_source"], "--ring-order");
  EXPECT_EQ(s["ring_channels"], "3");
  EXPECT_EQ(s["ring_chunk"], "4096");
  std::remove(out.c_str());
}

TEST(CliRing, BadRingOrderIsAUsageErrorNamingIt) {
  CliResult r = run_arbench("run --backend host --variants ring --gpus 4 -b 1K -e 1K --samples 1 --warmup 1 "
                            "--pipelined-ops 0 --ring-order 0,1,1,2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--ring-order: 1 is listed twice"), std::string::npos) << r.output;
}

TEST(CliRing, PlainListNamesTheNcclConfigurations) {
  // They are in no default sweep, so the catalogue after the cases is where a user finds them.
  CliResult r = run_arbench("list --backend host --gpus 2 -b 1K -e 1K");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("# variants (--variants takes names or globs"), std::string::npos) << r.output;
  for (const char* v : {"nccl[ring/simple]", "nccl[ring/ll]", "nccl[ring/ll128]", "nccl[tree/simple]", "nccl[tree/ll]",
                        "oneshot-pull", "oneshot-push", "twoshot", "ring", "nccl-symm", "fused-oneshot"})
    EXPECT_NE(r.output.find(std::string(" ") + v + " "), std::string::npos) << v << "\n" << r.output;
  EXPECT_NE(unwrap_catalogue(r.output).find("[not on host: configurations run on GPU fabrics only]"), std::string::npos)
      << r.output;
}

TEST(CliRing, ListShowsTheNcclConfigurations) {
  for (const char* cfg : {"nccl[ring/simple]", "nccl[ring/ll]", "nccl[ring/ll128]", "nccl[tree/simple]", "nccl[tree/ll]"}) {
    CliResult r = run_arbench(std::string("list --backend host --gpus 2 -b 1K -e 1K --variants '") + cfg + "'");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::string("allreduce/") + cfg + "/bf16/gpus:2/bytes:1024"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("]: configurations run on GPU fabrics only"), std::string::npos) << r.output;
  }
}
