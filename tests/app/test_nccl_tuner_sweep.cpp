// nccl[tuned] and the channel sweep with the built-in registry, no GPU needed: which cases
// --nccl-channels adds, what each case's communicator is created with (fabric_env), the checks
// of --tuner-table, and the process environment that loads the plugin for every NCCL case.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "arbench/core/errors.hpp"
#include "arbench/variant.hpp"
#include "run/process/nccl_tuner_env.hpp"
#include "sweep/sweep.hpp"

namespace arbench {
namespace {

RunConfig config(std::vector<std::string> variants) {
  RunConfig c;
  c.gpus = {2, 4};
  c.min_bytes = 1024;
  c.max_bytes = 2048;
  c.families = {Family::allreduce};
  c.variants = std::move(variants);
  return c;
}

std::vector<std::string> variants_of(const Sweep& s) {
  std::vector<std::string> v;
  for (const Case& c : s.cases)
    if (std::find(v.begin(), v.end(), c.variant) == v.end()) v.push_back(c.variant);
  return v;
}

std::string write_table(const std::string& rules) {
  const std::string path = ::testing::TempDir() + "arbench_tuner_sweep_" + std::to_string(getpid()) + ".table";
  std::ofstream(path) << "arbench-nccl-tuner-table 1\nnccl 2.28\nmachine cpu X\nmachine gpu G\nmachine cuda_driver 13.0\n"
                      << rules;
  return path;
}

TEST(NcclChannelSweep, EachForcedConfigurationGetsOneCasePerChannelCount) {
  RunConfig c = config({"nccl", "nccl[ring/ll]", "nccl[tree/simple]", "oneshot-push"});
  c.nccl_channels = {2, 8};
  const Sweep s = expand_sweep(c, Registry::builtin(), Backend::cuda);
  EXPECT_EQ(variants_of(s),
            (std::vector<std::string>{"nccl", "nccl[ring/ll]", "nccl[ring/ll/ch:2]", "nccl[ring/ll/ch:8]",
                                      "nccl[tree/simple]", "nccl[tree/simple/ch:2]", "nccl[tree/simple/ch:8]",
                                      "oneshot-push"}));
  EXPECT_EQ(s.cases.size(), 8u * 2 * 2);  // variants x worlds x sizes
  EXPECT_TRUE(sweep_needs_tuner(s));
  EXPECT_EQ(s.cases[8].name(), "allreduce/nccl[ring/ll/ch:2]/bf16/gpus:2/bytes:1024");  // after nccl, nccl[ring/ll]
  // Named directly, without the option.
  const Sweep d = expand_sweep(config({"nccl[ring/simple/ch:16]"}), Registry::builtin(), Backend::cuda);
  EXPECT_EQ(variants_of(d), std::vector<std::string>{"nccl[ring/simple/ch:16]"});
  // A plain sweep does not load the plugin.
  EXPECT_FALSE(sweep_needs_tuner(expand_sweep(config({"nccl", "nccl[ring/ll]"}), Registry::builtin(), Backend::cuda)));
}

TEST(NcclChannelSweep, ThePluginSetsTheChannelsOfEveryAllReduce) {
  const Case c{"nccl[ring/ll/ch:4]", Family::allreduce, DType::bf16, 8, 4096, 0, 0, false};
  const auto v = Registry::builtin().make(c.variant, Backend::cuda);
  const auto env = v->fabric_env(c, Tuning{});
  // No NCCL_MIN_CTAS: NCCL reads it once per process, so it would leak into every later case.
  EXPECT_EQ(env, (std::map<std::string, std::string>{
                     {"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}, {"ARBENCH_NCCL_TUNER_CHANNELS", "4"}}));
  // Without /ch: the configuration is what it was.
  const auto plain = Registry::builtin().make("nccl[ring/ll]", Backend::cuda);
  EXPECT_EQ(plain->fabric_env(c, Tuning{}),
            (std::map<std::string, std::string>{{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}}));
}

TEST(NcclTuned, AppliesTheTable) {
  RunConfig c = config({"nccl", "nccl[tuned]"});
  c.tuner_table = write_table(
      "allreduce nranks=2 nnodes=1 min_bytes=0 max_bytes=4096 algo=ring proto=ll channels=2\n"
      "allreduce nranks=2 nnodes=1 min_bytes=4097 max_bytes=9999 algo=ring proto=simple channels=6\n"
      "allreduce nranks=4 nnodes=1 min_bytes=0 max_bytes=4096 algo=tree proto=ll channels=0\n");
  resolve_defaults(c, Backend::host, 0);
  EXPECT_EQ(c.tuning.nccl_tuner_table[0], '/');  // absolute: the plugin reads it in another directory too
  const Sweep s = expand_sweep(c, Registry::builtin(), Backend::cuda);
  EXPECT_EQ(variants_of(s), (std::vector<std::string>{"nccl", "nccl[tuned]"}));
  EXPECT_TRUE(sweep_needs_tuner(s));
  const auto v = Registry::builtin().make("nccl[tuned]", Backend::cuda);
  const Case two{"nccl[tuned]", Family::allreduce, DType::bf16, 2, 4096, 0, 0, false};
  EXPECT_EQ(v->fabric_env(two, c.tuning),
            (std::map<std::string, std::string>{{"ARBENCH_NCCL_TUNER_TABLE", c.tuning.nccl_tuner_table}}));
  // Plain nccl's communicator is created as before.
  EXPECT_TRUE(Registry::builtin().make("nccl", Backend::cuda)->fabric_env(two, c.tuning).empty());
  std::remove(c.tuner_table.c_str());
}

TEST(NcclTuned, OptionsThatWouldBeIgnoredAreRefused) {
  const auto message = [](RunConfig c, Backend b) {
    try {
      expand_sweep(c, Registry::builtin(), b);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  RunConfig c = config({"nccl"});
  c.tuner_table = "t.table";
  EXPECT_NE(message(c, Backend::cuda).find("is applied by nccl[tuned] only"), std::string::npos);
  c = config({"nccl", "oneshot-push"});
  c.nccl_channels = {4};
  EXPECT_NE(message(c, Backend::cuda).find("and none is"), std::string::npos);
  c = config({"nccl[tuned]"});
  EXPECT_NE(message(c, Backend::cuda).find("nccl[tuned] applies a tuner table: give it with --tuner-table FILE"),
            std::string::npos);
  c.tuner_table = "t.table";
  EXPECT_NE(message(c, Backend::single_gpu).find("NCCL needs GPUs"), std::string::npos);
  EXPECT_NE(message(c, Backend::host).find("this run uses the host backend"), std::string::npos);
}

TEST(NcclTunerEnv, EveryNcclCommunicatorLoadsArbenchsPlugin) {
  const std::string plugin = ::testing::TempDir() + "arbench_fake_plugin_" + std::to_string(getpid()) + ".so";
  std::ofstream(plugin) << "x";
  setenv("ARBENCH_NCCL_TUNER_TABLE", "/left/over.table", 1);
  unsetenv("NCCL_TUNER_PLUGIN");
  const std::string note = load_tuner_everywhere(plugin, true, plugin);
  EXPECT_STREQ(std::getenv("NCCL_TUNER_PLUGIN"), plugin.c_str());
  EXPECT_EQ(std::getenv("ARBENCH_NCCL_TUNER_TABLE"), nullptr);  // each case sets its own
  EXPECT_NE(note.find("the other NCCL cases run NCCL's own choice"), std::string::npos);
  // Set to the same file again: fine. To another plugin: refused (NCCL loads one per process).
  EXPECT_NO_THROW(load_tuner_everywhere(plugin, true, plugin));
  setenv("NCCL_TUNER_PLUGIN", "/usr/lib/libnccl-tuner-other.so", 1);
  try {
    load_tuner_everywhere(plugin, true, plugin);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("NCCL_TUNER_PLUGIN is set to /usr/lib/libnccl-tuner-other.so"),
              std::string::npos);
  }
  unsetenv("NCCL_TUNER_PLUGIN");
  try {
    load_tuner_everywhere("/nowhere/libarbench-nccl-tuner.so", false, "/nowhere/libarbench-nccl-tuner.so");
    ADD_FAILURE() << "no error";
  } catch (const EnvironmentError& e) {
    EXPECT_EQ(e.exit_code(), 3);
    EXPECT_NE(std::string(e.what()).find("build the target arbench_nccl_tuner"), std::string::npos);
  }
  EXPECT_EQ(std::getenv("NCCL_TUNER_PLUGIN"), nullptr);
  std::remove(plugin.c_str());
}

}  // namespace
}  // namespace arbench
