// libarbench-nccl-tuner.so, loaded as NCCL loads it (dlopen + dlsym("ncclTunerPlugin_v5")) and
// driven through its ABI with NCCL's flat float[7][3] cost table, without a GPU or NCCL: this
// executable exports the few CUDA driver and NCCL entry points the plugin looks up (stand-ins
// whose answers each test sets), and a logger that keeps what the plugin logs.
#include <dlfcn.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "arbench/tuner/tuner_table.hpp"
#include "kernels/nccl/tuner/nccl_tuner_v5.hpp"

namespace {

// What the stand-ins answer.
int g_nccl_version = 22809;
int g_cuda_driver = 13000;
std::vector<std::string> g_gpus = {"NVIDIA RTX PRO 6000 Blackwell Server Edition"};

struct LogLine {
  int level;
  std::string text;
};
std::vector<LogLine> g_log;

}  // namespace

// The stand-ins (exported: the target has ENABLE_EXPORTS), found by the plugin with dlsym.
extern "C" {
__attribute__((visibility("default"))) int ncclGetVersion(int* v) {
  if (g_nccl_version == 0) return 1;
  *v = g_nccl_version;
  return 0;
}
__attribute__((visibility("default"))) int cuInit(unsigned int) { return 0; }
__attribute__((visibility("default"))) int cuDriverGetVersion(int* v) {
  *v = g_cuda_driver;
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGetCount(int* n) {
  *n = int(g_gpus.size());
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGet(int* dev, int i) {
  *dev = i;
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGetName(char* name, int len, int dev) {
  std::snprintf(name, std::size_t(len), "%s", g_gpus.at(std::size_t(dev)).c_str());
  return 0;
}
}

namespace {

using namespace arbench;
using nccl_abi::kIgnore;

void logger(nccl_abi::LogLevel level, unsigned long, const char*, int, const char* fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  g_log.push_back({int(level), buf});
}

std::string this_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream s;
  s << in.rdbuf();
  return tuner::cpu_model_from_cpuinfo(s.str());
}

// 8 ranks, one node: ring/ll up to 64 KiB on 4 channels, ring/simple to 1 MiB on 8, tree/simple
// to 8 MiB on NCCL's channels. 2 ranks: ring/ll everywhere up to 1 MiB.
std::string good_table(const std::string& nccl = "2.28", const std::string& cpu = this_cpu(),
                       const std::string& gpu = "NVIDIA RTX PRO 6000 Blackwell Server Edition") {
  return "# a test table\n"
         "arbench-nccl-tuner-table 1\n"
         "source tests/fixture.json\n"
         "fingerprint 0123456789abcdef\n"
         "nccl " + nccl + "\n"
         "machine cpu " + cpu + "\n"
         "machine gpu " + gpu + "\n"
         "machine cuda_driver 13.0\n"
         "allreduce nranks=8 nnodes=1 min_bytes=0 max_bytes=65536 algo=ring proto=ll channels=4\n"
         "# the crossover at 64 KiB\n"
         "allreduce nranks=8 nnodes=1 min_bytes=65537 max_bytes=1048576 algo=ring proto=simple channels=8\n"
         "allreduce nranks=8 nnodes=1 min_bytes=1048577 max_bytes=8388608 algo=tree proto=simple channels=0\n"
         "allreduce nranks=2 nnodes=1 min_bytes=0 max_bytes=1048576 algo=ring proto=ll channels=2\n";
}

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

  static void* lib_;
  static const nccl_abi::TunerV5* plugin_;
  std::filesystem::path dir_;
  void* ctx_ = nullptr;
  bool inited_ = false;
};

void* TunerPlugin::lib_ = nullptr;
const nccl_abi::TunerV5* TunerPlugin::plugin_ = nullptr;

TEST_F(TunerPlugin, NamesItselfArbench) { EXPECT_STREQ(plugin_->name, "arbench"); }

TEST_F(TunerPlugin, BothSidesOfEveryCrossoverGetTheMeasuredWinnerAndChannels) {
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  init(8);
  ASSERT_TRUE(logged(nccl_abi::kLogInfo, "applying table")) << log_text();
  expect_choice(0, tuner::kAlgoRing, tuner::kProtoLL, 4);
  expect_choice(1024, tuner::kAlgoRing, tuner::kProtoLL, 4);
  expect_choice(65536, tuner::kAlgoRing, tuner::kProtoLL, 4);        // last size of the first rule
  expect_choice(65537, tuner::kAlgoRing, tuner::kProtoSimple, 8);    // first size of the second
  expect_choice(1048576, tuner::kAlgoRing, tuner::kProtoSimple, 8);
  expect_choice(1048577, tuner::kAlgoTree, tuner::kProtoSimple, 0);  // channels 0: NCCL's count
  expect_choice(8388608, tuner::kAlgoTree, tuner::kProtoSimple, 0);
  EXPECT_TRUE(logged(nccl_abi::kLogInfo, "applied rule 0..65536 B -> ring/ll, 4 channels to an all-reduce of 0 B"))
      << log_text();
  finish();
  EXPECT_TRUE(logged(nccl_abi::kLogInfo, "0..65536 B -> ring/ll, 4 channels: applied 3 times")) << log_text();
}

TEST_F(TunerPlugin, EachWorldSizeGetsItsOwnRules) {
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  init(2);
  expect_choice(65537, tuner::kAlgoRing, tuner::kProtoLL, 2);
  expect_untouched(1048577);
}

TEST_F(TunerPlugin, UncoveredSizeCollectiveAndWorldSizeChangeNothing) {
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  init(8);
  expect_untouched(8388609);  // above the last rule
  expect_untouched(std::size_t(1) << 40);
  for (int coll : {0, 1, 2, 3, 5, 6, 7, 8, 9, 10}) expect_untouched(4096, coll);  // not an all-reduce
  init(4);  // no rule for 4 ranks
  EXPECT_TRUE(logged(nccl_abi::kLogInfo, "has no rule for it (ranks x nodes it has: 8x1  2x1 )")) << log_text();
  expect_untouched(4096);
  init(8, 2);  // nor for 8 ranks on 2 nodes
  expect_untouched(4096);
}

TEST_F(TunerPlugin, AWinnerCellNcclIgnoresStaysIgnored) {
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  init(8);
  CostTable no_ll;  // NCCL_PROTO=Simple: LL is ignored
  no_ll.cell[tuner::kAlgoRing][tuner::kProtoLL] = kIgnore;
  no_ll.cell[tuner::kAlgoTree][tuner::kProtoLL] = kIgnore;
  expect_untouched(4096, nccl_abi::kFuncAllReduce, no_ll);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "NCCL does not offer ring/ll here")) << log_text();
}

TEST_F(TunerPlugin, ASmallerCostTableIsNotWrittenPast) {
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  init(8);
  CostTable t;
  int channels = 0;
  // A table of 1 algorithm (tree) x 3 protocols: the ring rule's cell does not exist in it.
  EXPECT_EQ(plugin_->getCollInfo(ctx_, nccl_abi::kFuncAllReduce, 4096, 1, t.as_nccl_passes_it(), 1, 3, 0, &channels),
            nccl_abi::kSuccess);
  const CostTable in;
  EXPECT_EQ(std::memcmp(t.cell, in.cell, sizeof t.cell), 0);
  EXPECT_EQ(channels, 0);
}

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

TEST_F(TunerPlugin, AnotherNcclMajorMinorIsRefusedAPatchReleaseIsNot) {
  setenv(tuner::kTableEnv, write_table(good_table("2.30")).c_str(), 1);
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogWarn, "measured with NCCL 2.30, this is NCCL 2.28")) << log_text();
  expect_untouched(4096);

  g_nccl_version = 22803;  // 2.28.3: same major.minor
  setenv(tuner::kTableEnv, write_table(good_table("2.28")).c_str(), 1);
  init(8);
  expect_choice(4096, tuner::kAlgoRing, tuner::kProtoLL, 4);

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

TEST_F(TunerPlugin, WithoutATableItIsPassive) {
  init(8);
  EXPECT_TRUE(logged(nccl_abi::kLogInfo, "ARBENCH_NCCL_TUNER_TABLE is not set")) << log_text();
  expect_untouched(4096);
  expect_untouched(1u << 20);
}

TEST_F(TunerPlugin, ChannelModeSetsOnlyTheChannelsOfAllReduces) {
  setenv(tuner::kChannelsEnv, "6", 1);
  init(8);
  for (std::size_t bytes : {std::size_t(0), std::size_t(4096), std::size_t(1) << 30}) {
    int channels = 0;
    const CostTable in;
    const CostTable out = call(bytes, channels);
    EXPECT_EQ(std::memcmp(out.cell, in.cell, sizeof in.cell), 0);
    EXPECT_EQ(channels, 6);
  }
  expect_untouched(4096, 2);  // an all-gather keeps NCCL's channels
  for (const char* bad : {"0", "65", "x", "-3", "4 "}) {
    g_log.clear();
    setenv(tuner::kChannelsEnv, bad, 1);
    init(8);
    EXPECT_TRUE(logged(nccl_abi::kLogWarn, "is not a channel count")) << bad << "\n" << log_text();
    expect_untouched(4096);
  }
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

TEST_F(TunerPlugin, ExportsOnlyTheTunerSymbol) {
  // Internal names (the parser, the probe) stay hidden, so they can never clash with the host
  // program's symbols.
  EXPECT_EQ(dlsym(lib_, "ncclTunerPlugin_v4"), nullptr);
  EXPECT_EQ(dlsym(lib_, "_ZN7arbench5tuner13probe_machineERNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"), nullptr);
}

}  // namespace
