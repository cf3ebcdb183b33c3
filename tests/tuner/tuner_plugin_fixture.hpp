// The fixture of the tuner plugin's host tests (test_tuner_plugin*.cpp): libarbench-nccl-tuner.so
// loaded as NCCL loads it (dlopen + dlsym("ncclTunerPlugin_v5")) and driven through its ABI with
// NCCL's flat float[7][3] cost table, without a GPU or NCCL. The test executable exports the few
// CUDA driver and NCCL entry points the plugin looks up (tuner_plugin_fixture.cpp: stand-ins whose
// answers each test sets), and a logger that keeps what the plugin logs.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "arbench/tuner/tuner_table.hpp"
#include "kernels/nccl/tuner/nccl_tuner_v5.hpp"

namespace arbench::tuner_test {

using nccl_abi::kIgnore;

// What the stand-ins answer (reset by the fixture before each test).
extern int g_nccl_version;
extern int g_cuda_driver;
extern std::vector<std::string> g_gpus;

struct LogLine {
  int level;
  std::string text;
};
extern std::vector<LogLine> g_log;

// The logger passed to init: appends to g_log.
void logger(nccl_abi::LogLevel level, unsigned long, const char*, int, const char* fmt, ...);

// This machine's CPU model, as the plugin reads it.
std::string this_cpu();

// 8 ranks, one node: ring/ll up to 64 KiB on 4 channels, ring/simple to 1 MiB on 8, tree/simple
// to 8 MiB on NCCL's channels. 2 ranks: ring/ll everywhere up to 1 MiB.
std::string good_table(const std::string& nccl = "2.28", const std::string& cpu = this_cpu(),
                       const std::string& gpu = "NVIDIA RTX PRO 6000 Blackwell Server Edition");

// NCCL's flat cost table for an all-reduce on PCIe: tree and ring with LL and Simple valid, LL128
// and every other algorithm ignored (-1).
struct CostTable {
  float cell[tuner::kNumAlgorithms][tuner::kNumProtocols];
  CostTable() {
    for (auto& row : cell)
      for (float& c : row) c = kIgnore;
    cell[tuner::kAlgoTree][tuner::kProtoLL] = 11.5f;
    cell[tuner::kAlgoTree][tuner::kProtoSimple] = 30.25f;
    cell[tuner::kAlgoRing][tuner::kProtoLL] = 9.75f;
    cell[tuner::kAlgoRing][tuner::kProtoSimple] = 27.0f;
  }
  float** as_nccl_passes_it() { return reinterpret_cast<float**>(cell); }  // enqueue.cc's cast
};

class TunerPlugin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    lib_ = dlopen(ARBENCH_TUNER_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib_, nullptr) << dlerror();
    plugin_ = static_cast<const nccl_abi::TunerV5*>(dlsym(lib_, "ncclTunerPlugin_v5"));
    ASSERT_NE(plugin_, nullptr) << dlerror();
  }

  void SetUp() override {
    g_log.clear();
    g_nccl_version = 22809;
    g_cuda_driver = 13000;
    g_gpus = {"NVIDIA RTX PRO 6000 Blackwell Server Edition"};
    unsetenv(tuner::kTableEnv);
    unsetenv(tuner::kChannelsEnv);
    dir_ = std::filesystem::temp_directory_path() /
           ("arbench-tuner-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    finish();
    unsetenv(tuner::kTableEnv);
    unsetenv(tuner::kChannelsEnv);
    std::filesystem::remove_all(dir_);
  }

  std::string write_table(const std::string& text) {
    const std::string path = (dir_ / "table.txt").string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // init as NCCL's initTransportsRank calls it; the constants must come back untouched.
  void init(int nranks, int nnodes = 1) {
    finish();
    nccl_abi::TunerConstants constants;
    std::memset(&constants, 0x5a, sizeof constants);
    nccl_abi::TunerConstants before = constants;
    nccl_abi::NvlDomainInfo nvl{1, nranks, nranks};
    ctx_ = reinterpret_cast<void*>(0x1);
    ASSERT_EQ(plugin_->init(&ctx_, 0xabcdef, std::size_t(nranks), std::size_t(nnodes), logger, &nvl, &constants),
              nccl_abi::kSuccess);
    EXPECT_EQ(std::memcmp(&constants, &before, sizeof constants), 0) << "the plugin changed NCCL's tuning constants";
    inited_ = true;
  }
  void finish() {
    if (inited_) {
      EXPECT_EQ(plugin_->finalize(ctx_), nccl_abi::kSuccess);
    }
    inited_ = false;
    ctx_ = nullptr;
  }

  // getCollInfo on a fresh cost table; `channels` in and out.
  CostTable call(std::size_t bytes, int& channels, int coll = nccl_abi::kFuncAllReduce, CostTable t = {}) {
    EXPECT_EQ(plugin_->getCollInfo(ctx_, coll, bytes, 1, t.as_nccl_passes_it(), tuner::kNumAlgorithms,
                                   tuner::kNumProtocols, 0, &channels),
              nccl_abi::kSuccess);
    return t;
  }

  // The plugin left this call's table and nChannels byte for byte as NCCL passed them.
  void expect_untouched(std::size_t bytes, int coll = nccl_abi::kFuncAllReduce, CostTable in = {}) {
    int channels = 0;
    const CostTable out = call(bytes, channels, coll, in);
    EXPECT_EQ(std::memcmp(out.cell, in.cell, sizeof in.cell), 0) << "cost table changed at " << bytes << " B";
    EXPECT_EQ(channels, 0) << "nChannels changed at " << bytes << " B";
  }

  // The rule (algo, proto, channels) was applied: that cell is 0, every other cell as NCCL gave it.
  void expect_choice(std::size_t bytes, int algo, int proto, int want_channels) {
    int channels = 0;
    const CostTable in;
    const CostTable out = call(bytes, channels);
    for (int a = 0; a < tuner::kNumAlgorithms; ++a)
      for (int p = 0; p < tuner::kNumProtocols; ++p)
        EXPECT_EQ(out.cell[a][p], a == algo && p == proto ? 0.0f : in.cell[a][p])
            << bytes << " B: " << tuner::algo_name(a) << "/" << tuner::proto_name(p);
    EXPECT_EQ(channels, want_channels) << bytes << " B";
  }

  bool logged(int level, const std::string& part) const {
    for (const LogLine& l : g_log)
      if (l.level == level && l.text.find(part) != std::string::npos) return true;
    return false;
  }
  std::string log_text() const {
    std::string s;
    for (const LogLine& l : g_log) s += std::to_string(l.level) + " " + l.text + "\n";
    return s;
  }

  static inline void* lib_ = nullptr;
  static inline const nccl_abi::TunerV5* plugin_ = nullptr;
  std::filesystem::path dir_;
  void* ctx_ = nullptr;
  bool inited_ = false;
};

}  // namespace arbench::tuner_test
