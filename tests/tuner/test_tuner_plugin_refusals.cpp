// libarbench-nccl-tuner.so refusing what it must not apply: another machine's or another NCCL's
// table, malformed or unreadable files, conflicting variables, null arguments. Each refusal logs
// why and changes nothing (tuner_plugin_fixture.hpp has how the plugin is driven without a GPU).

#include <utility>

#include "tests/tuner/tuner_plugin_fixture.hpp"

namespace arbench::tuner_test {
namespace {

TEST_F(TunerPlugin, AnotherMachinesTableIsRefused) {
  setenv(tuner::kTableEnv, write_table(good_table("2.28", "Some Other CPU")).c_str(), 1);
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "another machine: CPU differs: the table was measured on 'Some Other CPU'"))
      << log_text();
  expect_untouched(4096);

  setenv(tuner::kTableEnv, write_table(good_table("2.28", this_cpu(), "NVIDIA H100 80GB HBM3")).c_str(), 1);
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "GPU 'NVIDIA RTX PRO 6000 Blackwell Server Edition' is not a model the table"))
      << log_text();
  expect_untouched(4096);

  g_cuda_driver = 12090;
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "CUDA driver differs: the table was measured with 13.0, this is 12.9")) << log_text();
  expect_untouched(4096);
}

TEST_F(TunerPlugin, AnotherNcclMajorIsRefusedAPatchReleaseIsNot) {
  setenv(tuner::kTableEnv, write_table(good_table("3.28")).c_str(), 1);
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "measured with NCCL 3.28, this is NCCL 2.28, another major version")) << log_text();
  expect_untouched(4096);

  g_nccl_version = 22803;  // 2.28.3: same major.minor
  setenv(tuner::kTableEnv, write_table(good_table("2.28")).c_str(), 1);
  g_log.clear();
  init(8);
  expect_choice(4096, tuner::kAlgoRing, tuner::kProtoLL, 4);
  EXPECT_FALSE(logged(nccl_abi::kLogWarn, "")) << log_text();

  g_nccl_version = 0;  // ncclGetVersion fails: which NCCL is unknown
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "cannot tell which NCCL loaded the plugin")) << log_text();
  expect_untouched(4096);
}

TEST_F(TunerPlugin, MalformedTablesAreRefusedWithTheReason) {
  const std::string good = good_table();
  const std::string rule = "allreduce nranks=8 nnodes=1 min_bytes=0 max_bytes=65536 algo=ring proto=ll channels=4";
  const auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {replace("algo=ring proto=ll channels=4", "algo=Ring2 proto=ll channels=4"), "unknown algorithm 'Ring2'"},
      {replace("proto=ll channels=4", "proto=LL129 channels=4"), "unknown protocol 'LL129'"},
      {replace("channels=4", "channels=65"), "channels=65 is out of range"},
      {replace("channels=4", "channels=-1"), "channels=-1 is not a whole number"},
      {replace("max_bytes=65536", "max_bytes=70000"), "overlap another rule's"},
      {replace("min_bytes=65537 max_bytes=1048576", "min_bytes=65536 max_bytes=1048576"),  // one shared byte
       "bytes 65536..1048576 overlap another rule's 0..65536"},
      {replace("min_bytes=0 max_bytes=65536", "min_bytes=9 max_bytes=8"), "min_bytes 9 is above max_bytes 8"},
      {replace("nccl 2.28\n", ""), "no 'nccl <major>.<minor>' line"},
      {replace("arbench-nccl-tuner-table 1", "arbench-nccl-tuner-table 2"), "this reader knows version 1"},
      {replace(rule, "allgather nranks=8"), "unknown statement 'allgather'"},
      {replace(rule, rule + " extra=1"), "unknown key 'extra'"},
      {replace(rule, "allreduce nranks=8 nnodes=1 min_bytes=0 algo=ring proto=ll channels=4"), "missing max_bytes="},
      {std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10), "control character"},
      {"", "empty: no 'arbench-nccl-tuner-table 1' line"},
      {"{\"schema\": \"arbench-dispatch-table\"}\n", "expected 'arbench-nccl-tuner-table 1' first"},
  };
  for (const auto& [text, why] : cases) {
    g_log.clear();
    setenv(tuner::kTableEnv, write_table(text).c_str(), 1);
    init(8);
    EXPECT_TRUE(logged(nccl_abi::kLogWarn, "malformed: ")) << why << "\n" << log_text();
    EXPECT_TRUE(logged(nccl_abi::kLogWarn, why)) << why << "\n" << log_text();
    expect_untouched(4096);
    expect_untouched(100000);
  }
}

TEST_F(TunerPlugin, AMissingOrUnreadableFileIsRefused) {
  setenv(tuner::kTableEnv, (dir_ / "no-such-table").c_str(), 1);
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "cannot open it: No such file or directory")) << log_text();
  expect_untouched(4096);
  setenv(tuner::kTableEnv, dir_.c_str(), 1);  // a directory
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "not a regular file")) << log_text();
  expect_untouched(4096);
  std::ofstream(dir_ / "huge") << std::string(tuner::kMaxFileBytes + 1, '#');
  setenv(tuner::kTableEnv, (dir_ / "huge").c_str(), 1);
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "more than a tuner table")) << log_text();
  expect_untouched(4096);
}

TEST_F(TunerPlugin, BothVariablesSetIsRefused) {
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  setenv(tuner::kChannelsEnv, "4", 1);
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "both ARBENCH_NCCL_TUNER_TABLE and ARBENCH_NCCL_TUNER_CHANNELS are set")) << log_text();
  expect_untouched(4096);
}

TEST_F(TunerPlugin, NullArgumentsAreSurvived) {
  EXPECT_EQ(plugin_->init(nullptr, 1, 8, 1, logger, nullptr, nullptr), nccl_abi::kSuccess);
  int channels = 0;
  CostTable t;
  EXPECT_EQ(plugin_->getCollInfo(nullptr, nccl_abi::kFuncAllReduce, 4096, 1, t.as_nccl_passes_it(), 7, 3, 0, &channels),
            nccl_abi::kSuccess);
  EXPECT_EQ(plugin_->finalize(nullptr), nccl_abi::kSuccess);
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  void* ctx = nullptr;
  nccl_abi::NvlDomainInfo nvl{};
  nccl_abi::TunerConstants constants{};
  EXPECT_EQ(plugin_->init(&ctx, 1, 8, 1, nullptr, &nvl, &constants), nccl_abi::kSuccess);  // no logger
  EXPECT_EQ(plugin_->getCollInfo(ctx, nccl_abi::kFuncAllReduce, 4096, 1, nullptr, 7, 3, 0, &channels), nccl_abi::kSuccess);
  EXPECT_EQ(plugin_->getCollInfo(ctx, nccl_abi::kFuncAllReduce, 4096, 1, t.as_nccl_passes_it(), 7, 3, 0, nullptr),
            nccl_abi::kSuccess);
  EXPECT_EQ(plugin_->finalize(ctx), nccl_abi::kSuccess);
}

}  // namespace
}  // namespace arbench::tuner_test
