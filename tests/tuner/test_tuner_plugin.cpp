// libarbench-nccl-tuner.so applying a table (or channel mode) through NCCL's ABI: the measured
// winner on both sides of every crossover, nothing changed where the table says nothing
// (tuner_plugin_fixture.hpp has how the plugin is loaded and driven without a GPU).
#include "tests/tuner/tuner_plugin_fixture.hpp"

namespace arbench::tuner_test {
namespace {

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

TEST_F(TunerPlugin, ExportsOnlyTheTunerSymbol) {
  // Internal names (the parser, the probe) stay hidden, so they can never clash with the host
  // program's symbols.
  EXPECT_EQ(dlsym(lib_, "ncclTunerPlugin_v4"), nullptr);
  EXPECT_EQ(dlsym(lib_, "_ZN7arbench5tuner13probe_machineERNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"), nullptr);
}

}  // namespace
}  // namespace arbench::tuner_test
