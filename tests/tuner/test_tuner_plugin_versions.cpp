// libarbench-nccl-tuner.so where an engine runs it: under the NCCL of the engine's wheel (another
// minor than the one measured: applied, one WARN line), through the interface that NCCL looks up
// (v6 for 2.30, v5 for 2.28/2.29), with one INFO line per communicator, never writing a cost
// table of another shape, and linked so that an older libstdc++ in the engine's environment
// cannot stop it from loading (tuner_plugin_fixture.hpp drives it without a GPU).
#include <cstdio>
#include <memory>

#include "kernels/nccl/tuner/nccl_tuner_v6.hpp"
#include "tests/tuner/tuner_plugin_fixture.hpp"

namespace arbench::tuner_test {
namespace {

int count(const std::vector<LogLine>& log, int level, const std::string& part = "") {
  int n = 0;
  for (const LogLine& l : log) n += l.level == level && l.text.find(part) != std::string::npos;
  return n;
}

TEST_F(TunerPlugin, ATableFrom228IsAppliedUnder229And230WithOneWarn) {
  setenv(tuner::kTableEnv, write_table(good_table("2.28")).c_str(), 1);
  for (const auto& [code, text] : {std::pair{22907, "2.29"}, std::pair{23007, "2.30"}}) {
    g_nccl_version = code;
    finish();  // the previous communicator's closing line is not this one's
    g_log.clear();
    init(8);
    EXPECT_EQ(count(g_log, nccl_abi::kLogWarn), 1) << text << "\n" << log_text();
    EXPECT_EQ(count(g_log, nccl_abi::kLogWarn, std::string("table measured with NCCL 2.28, applied under NCCL ") + text),
              1)
        << log_text();
    // One INFO line for the communicator: loaded, which interface, which table, its rules.
    EXPECT_EQ(count(g_log, nccl_abi::kLogInfo), 1) << log_text();
    EXPECT_EQ(count(g_log, nccl_abi::kLogInfo, "loaded (ncclTunerPlugin_v5) for communicator"), 1) << log_text();
    EXPECT_EQ(count(g_log, nccl_abi::kLogInfo, std::string("measured with NCCL 2.28, running NCCL ") + text), 1)
        << log_text();
    expect_choice(4096, tuner::kAlgoRing, tuner::kProtoLL, 4);
    expect_choice(100000, tuner::kAlgoRing, tuner::kProtoSimple, 8);
    EXPECT_EQ(count(g_log, nccl_abi::kLogWarn), 1) << "the WARN is said once, not per call\n" << log_text();
  }
}

TEST_F(TunerPlugin, AnotherMajorIsRefusedWhateverTheMinor) {
  for (const auto& [table, code] : {std::pair{"2.28", 32800}, std::pair{"2.28", 12800}, std::pair{"3.0", 22809}}) {
    g_nccl_version = code;
    g_log.clear();
    setenv(tuner::kTableEnv, write_table(good_table(table)).c_str(), 1);
    init(8);
    EXPECT_EQ(count(g_log, nccl_abi::kLogWarn, "another major version"), 1) << table << " " << code << "\n" << log_text();
    expect_untouched(4096);
    expect_untouched(100000);
  }
}

TEST_F(TunerPlugin, ExportsV6WithoutAChunkSizeHookAndItAppliesTheTable) {
  const auto* v6 = static_cast<const nccl_abi::TunerV6*>(dlsym(lib_, "ncclTunerPlugin_v6"));
  ASSERT_NE(v6, nullptr) << dlerror();
  EXPECT_STREQ(v6->name, "arbench");
  EXPECT_EQ(v6->getChunkSize, nullptr) << "NCCL 2.30 calls getChunkSize only when it is not null";
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  nccl_abi::TunerConstants constants{};
  nccl_abi::NvlDomainInfo nvl{1, 8, 8};
  void* ctx = nullptr;
  ASSERT_EQ(v6->init(&ctx, 7, 8, 1, logger, &nvl, &constants), nccl_abi::kSuccess);
  EXPECT_EQ(count(g_log, nccl_abi::kLogInfo, "loaded (ncclTunerPlugin_v6) for communicator"), 1) << log_text();
  CostTable t;
  int channels = 0;
  ASSERT_EQ(v6->getCollInfo(ctx, nccl_abi::kFuncAllReduce, 4096, 1, t.as_nccl_passes_it(), tuner::kNumAlgorithms,
                            tuner::kNumProtocols, 0, &channels),
            nccl_abi::kSuccess);
  EXPECT_EQ(t.cell[tuner::kAlgoRing][tuner::kProtoLL], 0.0f);
  EXPECT_EQ(channels, 4);
  EXPECT_EQ(v6->finalize(ctx), nccl_abi::kSuccess);
}

// NCCL passes numAlgo x numProto and a flat table of that shape. A table of another shape (fewer
// protocols, more algorithms) is left as it was, and nothing past its end is written.
TEST_F(TunerPlugin, ACostTableOfAnotherShapeIsNeverWritten) {
  setenv(tuner::kTableEnv, write_table(good_table()).c_str(), 1);
  init(8);
  struct Shape {
    int algos, protos;
  };
  for (const Shape s : {Shape{7, 2}, Shape{7, 1}, Shape{8, 3}, Shape{6, 3}}) {
    const int cells = s.algos * s.protos;
    std::vector<float> buf(std::size_t(cells) + 8, 5.0f);  // the table, then 8 guard cells
    std::vector<float> before = buf;
    for (std::uint64_t bytes : {std::uint64_t(4096), std::uint64_t(100000), std::uint64_t(2) << 20}) {
      int channels = 0;
      EXPECT_EQ(plugin_->getCollInfo(ctx_, nccl_abi::kFuncAllReduce, bytes, 1, reinterpret_cast<float**>(buf.data()),
                                     s.algos, s.protos, 0, &channels),
                nccl_abi::kSuccess);
      EXPECT_EQ(buf, before) << s.algos << "x" << s.protos << " at " << bytes << " B";
      EXPECT_EQ(channels, 0);
    }
  }
  EXPECT_EQ(count(g_log, nccl_abi::kLogWarn, "NCCL passed a cost table of 7 algorithms x 2 protocols"), 1) << log_text();
  EXPECT_EQ(count(g_log, nccl_abi::kLogWarn), 1) << "one WARN per communicator\n" << log_text();
}

TEST_F(TunerPlugin, SixtyFourChannelsAreAccepted) {
  std::string table = good_table();
  const std::string from = "algo=ring proto=ll channels=4";
  table.replace(table.find(from), from.size(), "algo=ring proto=ll channels=64");
  setenv(tuner::kTableEnv, write_table(table).c_str(), 1);
  init(8);
  expect_choice(4096, tuner::kAlgoRing, tuner::kProtoLL, 64);
}

// readelf's dynamic section of the built plugin.
std::string readelf(const std::string& args) {
  const std::string cmd = "readelf " + args + " '" + std::string(ARBENCH_TUNER_PLUGIN) + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  char buf[4096];
  while (p && std::fgets(buf, sizeof buf, p.get())) out += buf;
  return out;
}

TEST_F(TunerPlugin, NeedsNoDynamicLibstdcxxNorLibgcc) {
  const std::string dynamic = readelf("-d");
  ASSERT_NE(dynamic.find("(NEEDED)"), std::string::npos) << "readelf -d gave no NEEDED entry:\n" << dynamic;
  EXPECT_NE(dynamic.find("libc.so"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find("libstdc++"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find("libgcc_s"), std::string::npos) << dynamic;
  // The static copies stay inside: no C++ runtime symbol is exported to clash with the engine's.
  const std::string symbols = readelf("--dyn-syms -W");
  ASSERT_NE(symbols.find("ncclTunerPlugin_v5"), std::string::npos) << symbols;
  EXPECT_EQ(symbols.find("_ZNSt"), std::string::npos) << symbols;
  EXPECT_EQ(symbols.find("__cxa_throw"), std::string::npos) << symbols;
}

}  // namespace
}  // namespace arbench::tuner_test
