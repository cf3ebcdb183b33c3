// NCCL's entries of the knob catalogue (knob_data.hpp): read at NVIDIA/nccl's release tags (a git
// snapshot with tags up to v2.30.7-1); every boundary carries its evidence.
#include "settings/catalogue/knob_data.hpp"

namespace arbench::knob_data {

void add_nccl(std::vector<Knob>& k) {
  k.push_back(
      {.id = "nccl.tuner_plugin", .engine = "NCCL", .package = "nccl", .name = "NCCL_TUNER_PLUGIN",
       .kind = K::env_var, .values = "path of libarbench-nccl-tuner.so (+ ARBENCH_NCCL_TUNER_TABLE)", .first = "2.28.3",
       .conditions = "any GPU and topology; NCCL 2.28 or newer (arbench's plugin exports tuner interfaces v5 and v6)",
       .what = "NCCL loads arbench's tuner plugin, which applies the measured table",
       .source = {"NVIDIA/nccl", "v2.27.7-1, v2.28.3-1, v2.28.9-1",
                  "src/plugin/tuner.cc, src/plugin/tuner/tuner_v5.cc (v2.27.7-1 looks up v4, v3, v2 only; v5 from "
                  "v2.28.3-1), src/include/plugin/tuner/tuner_v5.h, src/enqueue.cc",
                  "v2.27.7-1, v2.28.3-1, v2.28.9-1"},
       .verified = true,
       .evidence = {{"NVIDIA/nccl", "v2.28.3-1", "v2.27.7-1", "src/plugin/tuner.cc", R"(getNcclTuner_v5\(tunerPluginLib\))"}}});
  k.push_back(
      {.id = "nccl.channels_env", .engine = "NCCL", .package = "nccl",
       .name = "NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_MIN/MAX_NCHANNELS", .kind = K::env_var, .values = "channel counts",
       .conditions = "read once per process",
       .what = "the communicators' channel counts, carried from the measurement's environment",
       .source = {"NVIDIA/nccl", "v2.28.9-1", "src/init.cc, src/graph/connect.cc, src/include/param.h", "v2.28.9-1"},
       .verified = true,
       .evidence = {{"NVIDIA/nccl", "v2.28.9-1", "", "src/init.cc", R"(NCCL_PARAM\(MinCTAs, "MIN_CTAS")"},
                    {"NVIDIA/nccl", "v2.28.9-1", "", "src/graph/connect.cc", R"(NCCL_PARAM\(MinNchannels, "MIN_NCHANNELS")"}}});
  // The example plugin reads NCCL_TUNER_CONFIG_FILE from 2.27.5, and indexes the cost table as
  // float** (a crash on the first matching row) up to 2.29.7; 2.30.3 indexes it as a 2-D array.
  k.push_back(
      {.id = "nccl.example_plugin", .engine = "NCCL", .package = "nccl", .name = "NCCL_TUNER_CONFIG_FILE",
       .kind = K::env_var, .values = "path of a CSV file", .first = "2.27.5", .last = "2.29.7",
       .conditions = "crashes on the first row that matches a collective (never use it with these releases)",
       .what = "NCCL's example tuner plugin reads a CSV file of overrides, and crashes applying the first match",
       .source = {"NVIDIA/nccl", "v2.27.3-1, v2.27.5-1, v2.28.9-1, v2.29.7-1",
                  "ext-tuner/example/plugin.c (getenv of NCCL_TUNER_CONFIG_FILE from v2.27.5-1; pluginGetCollInfo "
                  "indexes collCostTable as float**), plugins/tuner/example/plugin.c (v2.29.7-1)",
                  "v2.27.3-1, v2.27.5-1, v2.28.9-1, v2.29.7-1"},
       .verified = true,
       .caveat = "crashes on the first matching row: the CSV file must not be given to these releases",
       .evidence = {{"NVIDIA/nccl", "v2.27.5-1", "v2.27.3-1", "ext-tuner/example/plugin.c", R"(getenv\("NCCL_TUNER_CONFIG_FILE"\))"},
                    {"NVIDIA/nccl", "v2.29.7-1", "", "plugins/tuner/example/plugin.c", R"(collCostTable\[config->algorithm\]\[config->protocol\] = 0\.0)"}}});
  k.push_back(
      {.id = "nccl.example_plugin", .engine = "NCCL", .package = "nccl", .name = "NCCL_TUNER_CONFIG_FILE",
       .kind = K::env_var, .values = "path of a CSV file", .first = "2.30.3",
       .conditions = "NCCL 2.30.3 or newer (2.27.5 to 2.29.7 crash on the first matching row)",
       .what = "NCCL's example tuner plugin with a CSV file of overrides",
       .source = {"NVIDIA/nccl", "v2.29.7-1, v2.30.3-1, v2.30.7-1",
                  "plugins/tuner/example/plugin.c (pluginGetCollInfo's cost-table indexing: as float** to v2.29.7-1, as "
                  "a 2-D array from v2.30.3-1)",
                  "v2.29.7-1, v2.30.3-1, v2.30.7-1"},
       .verified = true,
       .caveat = "every version to 2.30.7 sets one channel for anything no row matches",
       .evidence = {{"NVIDIA/nccl", "v2.30.3-1", "v2.29.7-1", "plugins/tuner/example/plugin.c", R"(float \(\*table\)\[NCCL_NUM_PROTOCOLS\] = \(float \(\*\)\[NCCL_NUM_PROTOCOLS\]\)collCostTable)"}}});
  k.push_back(
      {.id = "nccl.symm_kernels", .engine = "NCCL", .package = "nccl", .name = "(symmetric kernels)",
       .kind = K::library_behaviour, .values = "-", .first = "2.27.3", .last = "2.27.7",
       .conditions = "one node, every GPU pair directly P2P-connected, PCIe included (isAllDirectP2p), cuMem on; one "
                     "collective per group",
       .what = "NCCL runs its symmetric kernels on symmetrically registered buffers (no NVLink check)",
       .source = {"NVIDIA/nccl", "v2.27.3-1, v2.27.7-1",
                  "src/enqueue.cc (ncclPrepareTasks), src/symmetric.cc (ncclSymPickKernel), src/init.cc "
                  "(symmetricSupport), src/transport.cc (isAllDirectP2p); 2.27.3 release notes",
                  "v2.27.3-1, v2.27.7-1"},
       .verified = true,
       .evidence = {{"NVIDIA/nccl", "v2.27.3-1", "v2.26.6-1", "src/symmetric.cc", R"(ncclResult_t ncclSymPickKernel\()"},
                    {"NVIDIA/nccl", "v2.27.3-1", "v2.26.6-1", "src/transport.cc", R"(bool\* isAllDirectP2p)"}}});
  k.push_back(
      {.id = "nccl.symm_kernels", .engine = "NCCL", .package = "nccl", .name = "(symmetric kernels)",
       .kind = K::library_behaviour, .values = "-", .first = "2.28.3", .last = "2.29.1",
       .conditions = "registered symmetric buffers; any P2P topology, PCIe included",
       .what = "NCCL runs its symmetric kernels on symmetrically registered buffers",
       .source = {"NVIDIA/nccl", "v2.28.3-1, v2.28.9-1", "src/sym_kernels.cc (ncclSymkAvailable: no topology check)",
                  "v2.28.3-1, v2.28.9-1"},
       .verified = true,
       .evidence = {{"NVIDIA/nccl", "v2.28.3-1", "v2.27.7-1", "src/sym_kernels.cc", R"(bool ncclSymkAvailable\()"}}});
  k.push_back(
      {.id = "nccl.symm_kernels", .engine = "NCCL", .package = "nccl", .name = "(symmetric kernels)",
       .kind = K::library_behaviour, .values = "-", .first = "2.29.2",
       .conditions = "every GPU pair directly NVLink-connected",
       .what = "NCCL runs its symmetric kernels only where every GPU pair is directly NVLink-connected; over PCIe "
               "a symmetric window gets the ordinary kernels",
       .source = {"NVIDIA/nccl", "v2.29.2-1, v2.30.7-1",
                  "src/sym_kernels.cc (ncclSymkAvailable: isAllDirectNvlink); 2.29.2 release notes",
                  "v2.29.2-1, v2.30.7-1"},
       .verified = true, .needs_nvlink = true,
       .evidence = {{"NVIDIA/nccl", "v2.29.2-1", "v2.28.9-1", "src/sym_kernels.cc", R"(if \(!comm->isAllDirectNvlink\))"}}});
}

}  // namespace arbench::knob_data
