// NCCL with arbench's tuner plugin, for real: `arbench run` with `nccl`, `nccl[tuned]` and a
// channel configuration in one sweep on the GPUs present (2, or 1 on a one-GPU machine), with a
// tuner table written for this machine (its facts read from a first run's provenance: CPU, GPU,
// CUDA driver, NCCL version) whose one rule covers every size. Checks that every case is correct,
// that NCCL loaded the plugin, and that the plugin logged the table it applied, the rule it applied
// and the channel count it forced (NCCL_DEBUG=INFO into NCCL_DEBUG_FILE). Skips without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "arbench/tuner/tuner_table_text.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run(const std::string& command, std::string& output) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) output.append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(NcclTunedGpu, TheTunedCaseIsCorrectAndThePluginSaysWhatItApplied) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  const int world = devices >= 2 ? 2 : 1;
  const std::string dir = ::testing::TempDir() + "arbench_tuned_gpu_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string exe = ARBENCH_EXE, w = std::to_string(world);
  const std::string common = " --backend cuda --gpus " + w + " --family allreduce -b 4K -e 256K -f 8 --warmup 2 "
                             "--samples 5 --pipelined-ops 0 --timeout 20 -q";

  // 1. This machine's facts, as a result records them.
  std::string out;
  ASSERT_EQ(run(exe + " run" + common + " --variants nccl --out " + dir + "/facts.json", out), 0) << out;
  const nlohmann::json prov = nlohmann::json::parse(read_all(dir + "/facts.json"))["arbench"]["provenance"];
  arbench::tuner::Table t;
  t.source = "the GPU test";
  t.fingerprint = prov["fingerprint"].get<std::string>();
  ASSERT_EQ(std::sscanf(prov["nccl_version"].get<std::string>().c_str(), "%d.%d", &t.nccl_major, &t.nccl_minor), 2);
  t.machine.cpu = prov["cpu_model"].get<std::string>();
  t.machine.cuda_driver = prov["driver"].get<std::string>();
  for (const auto& g : prov["gpus"]) t.machine.gpus.push_back(g["name"].get<std::string>());
  // One rule for every size: ring/simple on 2 channels (1 on one GPU, where only ring/simple exists).
  t.rules.push_back({world, 1, 0, std::uint64_t(1) << 40, arbench::tuner::kAlgoRing, arbench::tuner::kProtoSimple,
                     world == 1 ? 1 : 2, ""});
  const std::string table = dir + "/arbench-nccl-tuner.table";
  std::ofstream(table) << arbench::tuner::format_table(t);

  // 2. nccl, nccl[tuned] and nccl[ring/simple/ch:2] in one sweep, NCCL's log in a file.
  out.clear();
  const std::string log = dir + "/nccl.log";
  const int rc = run("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING NCCL_DEBUG_FILE=" + log + " " + exe + " run" +
                         common + " --variants 'nccl,nccl[tuned],nccl[ring/simple]' --nccl-channels 2 --tuner-table " +
                         table + " --out " + dir + "/tuned.json",
                     out);
  ASSERT_EQ(rc, 0) << out << "\nNCCL log:\n" << read_all(log);
  EXPECT_NE(out.find("every NCCL case of this run loads arbench's tuner plugin"), std::string::npos) << out;
  const nlohmann::json result = nlohmann::json::parse(read_all(dir + "/tuned.json"));
  int tuned = 0, channels = 0, plain = 0;
  for (const auto& c : result["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c["name"] << ": " << c["reason"];
    EXPECT_EQ(c["checked"], true) << c["name"];
    EXPECT_EQ(c["wrong_elements"], 0) << c["name"];
    const std::string v = c["variant"];
    tuned += v == "nccl[tuned]";
    channels += v == "nccl[ring/simple/ch:2]";
    plain += v == "nccl";
    if (v == "nccl[tuned]") {
      EXPECT_EQ(c["settings"]["ARBENCH_NCCL_TUNER_TABLE"], table);
    }
  }
  EXPECT_EQ(tuned, 3);  // 4K, 32K, 256K
  EXPECT_EQ(channels, 3);
  EXPECT_EQ(plain, 3);

  // 3. What the plugin logged through NCCL.
  const std::string text = read_all(log);
  EXPECT_NE(text.find("arbench tuner: "), std::string::npos) << "the plugin never logged:\n" << text;
  EXPECT_NE(text.find("applying table " + table), std::string::npos) << text;
  EXPECT_NE(text.find("applied rule 0..1099511627776 B -> ring/simple, " + std::to_string(world == 1 ? 1 : 2) +
                      " channels to an all-reduce of"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("every all-reduce on 2 channels"), std::string::npos) << text;
  EXPECT_NE(text.find("ARBENCH_NCCL_TUNER_TABLE is not set; NCCL's own choice is kept"), std::string::npos)
      << "plain nccl's communicator should have the plugin loaded and passive:\n" << text;
  EXPECT_EQ(text.find("refusing table"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

}  // namespace
