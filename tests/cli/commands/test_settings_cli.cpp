// `arbench settings` end to end on the committed fixture results: the files it writes (and that
// the tuner table is what the plugin reads), every bad value (exit 2 naming it, before any file is
// read) and every input file that is not a cuda-backend arbench result (exit 2 naming the file);
// and `arbench run`'s new options: nccl[tuned] refused on the host backend (NCCL needs GPUs),
// --tuner-table and --nccl-channels checked before any work.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "arbench/tuner/tuner_table_text.hpp"
#include "tests/cli/cli_util.hpp"

namespace {

bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

std::string fixture(const std::string& name) {
  return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/settings/" + name + ".json";
}

std::string temp_dir(const std::string& stem) {
  const std::string d = ::testing::TempDir() + "arbench_settings_cli_" + stem + "_" + std::to_string(::getpid());
  std::filesystem::remove_all(d);
  return d;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SettingsCli, WritesTheTableTheExampleFileAndTheJson) {
  const std::string dir = temp_dir("ok");
  CliResult r = run_arbench("settings " + fixture("pcie8-crossovers") + " --out-dir " + dir +
                            " --plugin /opt/arbench/lib/libarbench-nccl-tuner.so");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "=== 8 GPUs (tensor parallel 8, PCIe")) << r.output;
  EXPECT_TRUE(has(r.output, "ARBENCH_NCCL_TUNER_TABLE=" + dir + "/arbench-nccl-tuner.table")) << r.output;
  arbench::tuner::Table t;
  EXPECT_EQ(arbench::tuner::parse_table(read(dir + "/arbench-nccl-tuner.table"), t), "");
  EXPECT_EQ(t.rules.size(), 5u);
  EXPECT_TRUE(has(read(dir + "/nccl_tuner.conf"), "allreduce,0,65536,ring,ll,4,1,8,-1,-1"));
  const nlohmann::json j = nlohmann::json::parse(read(dir + "/settings.json"));
  EXPECT_EQ(j["schema"], "arbench-settings");
  // --format json prints the same document.
  CliResult js = run_arbench("settings " + fixture("pcie8-crossovers") + " --out-dir " + dir +
                             " --plugin /opt/arbench/lib/libarbench-nccl-tuner.so --format json --gpus 8");
  ASSERT_EQ(js.exit_code, 0) << js.output;
  EXPECT_EQ(nlohmann::json::parse(js.output)["worlds"].size(), 1u);
  std::filesystem::remove_all(dir);
}

TEST(SettingsCli, BadValuesAreRefusedBeforeAnyFileIsRead) {
  const std::string dir = temp_dir("bad");
  const std::string f = fixture("pcie8-crossovers") + " --out-dir " + dir;
  const std::pair<std::string, std::string> cases[] = {
      {"--alpha nan", "--alpha: nan is not a number; expected 0 < P <= 0.5"},
      {"--alpha 0", "--alpha: 0 is out of range: 0 < P <= 0.5"},
      {"--alpha 0.6", "--alpha: 0.6 is out of range: 0 < P <= 0.5"},
      {"--alpha x", "--alpha: 'x' is not a number"},
      {"--margin 0", "--margin: 0 is out of range: 0 < PCT <= 99"},
      {"--margin 100", "--margin: 100 is out of range: 0 < PCT <= 99"},
      {"--margin inf", "--margin: inf is not a finite number"},
      {"--margin -5%", "--margin: -5 is out of range"},
      {"--gpus 0", "--gpus: 0 is out of range: 1 <= N <= 65536"},
      {"--gpus 8,8", "--gpus: 8 is listed twice"},
      {"--gpus 16", "--gpus 16: the results hold no bf16 case on 16 GPUs (measured: 2, 4, 8)"},
      {"--hidden 0", "--hidden: 0 is out of range: 1 <= N <= 1048576"},
      {"--hidden 4096", "--hidden 4096: the fused family was measured at hidden 8192"},
      {"--model nope", "unknown --model 'nope'"},
      {"--dtype fp8", "--dtype"},
      {"--format yaml", "--format"},
  };
  for (const auto& [args, message] : cases) {
    CliResult r = run_arbench("settings " + f + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_TRUE(has(r.output, message)) << args << ": " << r.output;
  }
  CliResult empty = run_arbench("settings " + fixture("no-fused") + " --out-dir ''");
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_TRUE(has(empty.output, "--out-dir: an empty value")) << empty.output;
  // --out-dir naming a file.
  const std::string file = ::testing::TempDir() + "arbench_settings_cli_file_" + std::to_string(::getpid());
  std::ofstream(file) << "x";
  CliResult r = run_arbench("settings " + fixture("no-fused") + " --out-dir " + file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--out-dir " + file + ": exists and is not a folder")) << r.output;
  std::remove(file.c_str());
  std::filesystem::remove_all(dir);
}

TEST(SettingsCli, InputsThatAreNotGpuResultsNameTheFile) {
  const std::string dir = temp_dir("inputs");
  const std::string tmp = ::testing::TempDir() + "arbench_settings_cli_in_" + std::to_string(::getpid());
  std::filesystem::create_directories(tmp);
  std::ofstream(tmp + "/binary.json", std::ios::binary) << std::string("\x7f" "ELF\x02\x01\x01\0\0", 9);
  std::ofstream(tmp + "/other.json") << R"({"schema": "arbench-dispatch-table", "tables": []})";
  std::ofstream(tmp + "/table.json") << "arbench-nccl-tuner-table 1\n";
  const std::string host = std::string(ARBENCH_SOURCE_DIR) + "/results/samples/host-cpu-timing-sample.json";
  const std::pair<std::string, std::string> cases[] = {
      {tmp, tmp + ": "},  // a directory
      {tmp + "/binary.json", tmp + "/binary.json: a binary file, not JSON text"},
      {tmp + "/other.json", tmp + "/other.json: this is a dispatch table written by `arbench tune --out`"},
      {tmp + "/table.json", tmp + "/table.json: not valid JSON"},
      {host, host + ": a result of the host backend"},
      {tmp + "/missing.json", tmp + "/missing.json: no such file"},
  };
  for (const auto& [input, message] : cases) {
    CliResult r = run_arbench("settings " + input + " --out-dir " + dir);
    EXPECT_EQ(r.exit_code, 2) << input << ": " << r.output;
    EXPECT_TRUE(has(r.output, message)) << input << ": " << r.output;
  }
  std::filesystem::remove_all(tmp);
  std::filesystem::remove_all(dir);
}

TEST(RunTunerOptions, NcclTunedIsRefusedOnTheHostBackend) {
  CliResult r = run_arbench("run --backend host --gpus 2 --variants 'nccl,nccl[tuned]' -b 1K -e 1K");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "nccl[tuned] runs NCCL with arbench's tuner plugin, and NCCL needs GPUs")) << r.output;
  EXPECT_TRUE(has(r.output, "this run uses the host backend")) << r.output;
  CliResult l = run_arbench("list --backend host --gpus 2 --variants 'nccl[tuned]'");
  EXPECT_EQ(l.exit_code, 2) << l.output;
}

TEST(RunTunerOptions, TheirValuesAreCheckedBeforeAnyWork) {
  const std::string table = ::testing::TempDir() + "arbench_run_table_" + std::to_string(::getpid());
  std::ofstream(table) << "arbench-nccl-tuner-table 1\nnccl 2.28\nmachine cpu X\nmachine gpu G\nmachine cuda_driver 13.0\n"
                          "allreduce nranks=2 nnodes=1 min_bytes=0 max_bytes=9 algo=ring proto=lll channels=2\n";
  const std::pair<std::string, std::string> cases[] = {
      {"--tuner-table " + table + " --variants 'nccl[tuned]'",
       "--tuner-table: " + table + ": not a tuner table: line 6: unknown protocol 'lll'"},
      {"--tuner-table " + ::testing::TempDir() + " --variants 'nccl[tuned]'", ": a folder, not a file"},
      {"--nccl-channels 65 --variants 'nccl[ring/ll]'", "--nccl-channels: 65 is out of range: 1 <= N <= 64"},
      {"--nccl-channels 0 --variants 'nccl[ring/ll]'", "--nccl-channels: 0 is out of range: 1 <= N <= 64"},
      {"--nccl-channels 2,2 --variants 'nccl[ring/ll]'", "--nccl-channels: 2 is listed twice"},
      {"--variants 'nccl[ring/ll/ch:0]'", "unknown variant 'nccl[ring/ll/ch:0]'"},
      {"--variants 'nccl[tuned/ch:2]'", "unknown variant 'nccl[tuned/ch:2]'"},
  };
  for (const auto& [args, message] : cases) {
    CliResult r = run_arbench("list --backend host --gpus 2 -b 1K -e 1K " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_TRUE(has(r.output, message)) << args << ": " << r.output;
  }
  std::remove(table.c_str());
}

}  // namespace
