// The tuner table format (include/arbench/tuner/tuner_table.hpp): what the writer writes the
// reader reads back, rules are looked up with inclusive bounds, and the machine facts are read
// the way arbench's provenance records them.
#include <gtest/gtest.h>

#include "arbench/tuner/tuner_table_text.hpp"

namespace arbench::tuner {
namespace {

Table sample() {
  Table t;
  t.source = "results/box.json";
  t.fingerprint = "0123456789abcdef";
  t.nccl_major = 2;
  t.nccl_minor = 28;
  t.machine = {"AMD EPYC 9575F 64-Core Processor", {"NVIDIA RTX PRO 6000 Blackwell Server Edition"}, "13.0"};
  t.notes = {"a note\nwith a newline"};
  t.rules.push_back({8, 1, 0, 65536, kAlgoRing, kProtoLL, 4, "nccl[ring/ll/ch:4] 12.1 us"});
  t.rules.push_back({8, 1, 65537, 1 << 20, kAlgoRing, kProtoSimple, 0, ""});
  t.rules.push_back({2, 1, 0, 1 << 20, kAlgoTree, kProtoLL, 2, ""});
  return t;
}

TEST(TunerTable, WhatIsWrittenReadsBack) {
  const Table t = sample();
  Table back;
  ASSERT_EQ(parse_table(format_table(t), back), "") << format_table(t);
  EXPECT_EQ(back.source, t.source);
  EXPECT_EQ(back.fingerprint, t.fingerprint);
  EXPECT_EQ(back.nccl_major, 2);
  EXPECT_EQ(back.nccl_minor, 28);
  EXPECT_EQ(back.machine.cpu, t.machine.cpu);
  EXPECT_EQ(back.machine.gpus, t.machine.gpus);
  EXPECT_EQ(back.machine.cuda_driver, "13.0");
  ASSERT_EQ(back.rules.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.rules[i].nranks, t.rules[i].nranks);
    EXPECT_EQ(back.rules[i].min_bytes, t.rules[i].min_bytes);
    EXPECT_EQ(back.rules[i].max_bytes, t.rules[i].max_bytes);
    EXPECT_EQ(back.rules[i].algo, t.rules[i].algo);
    EXPECT_EQ(back.rules[i].proto, t.rules[i].proto);
    EXPECT_EQ(back.rules[i].channels, t.rules[i].channels);
  }
  // A newline inside a note or a path cannot end a statement early.
  EXPECT_NE(format_table(t).find("# a note with a newline\n"), std::string::npos);
}

TEST(TunerTable, RangesAreInclusiveOnBothEnds) {
  const Table t = sample();
  EXPECT_EQ(find_rule(t.rules, 8, 1, 0), &t.rules[0]);
  EXPECT_EQ(find_rule(t.rules, 8, 1, 65536), &t.rules[0]);
  EXPECT_EQ(find_rule(t.rules, 8, 1, 65537), &t.rules[1]);
  EXPECT_EQ(find_rule(t.rules, 8, 1, 1 << 20), &t.rules[1]);
  EXPECT_EQ(find_rule(t.rules, 8, 1, (1 << 20) + 1), nullptr);
  EXPECT_EQ(find_rule(t.rules, 8, 2, 100), nullptr);
  EXPECT_EQ(find_rule(t.rules, 4, 1, 100), nullptr);
  EXPECT_EQ(find_rule(t.rules, 2, 1, 100), &t.rules[2]);
  EXPECT_EQ(max_channels(t.rules, 8, 1), 4);
  EXPECT_EQ(max_channels(t.rules, 4, 1), 0);
}

TEST(TunerTable, NamesAreNcclsInAnyCase) {
  EXPECT_EQ(algo_index("Ring"), kAlgoRing);
  EXPECT_EQ(algo_index("TREE"), kAlgoTree);
  EXPECT_EQ(algo_index("NVLSTree"), 5);
  EXPECT_EQ(algo_index("rings"), -1);
  EXPECT_EQ(proto_index("LL128"), kProtoLL128);
  EXPECT_EQ(proto_index("Simple"), kProtoSimple);
  EXPECT_EQ(proto_index("ll64"), -1);
}

TEST(TunerTable, MachineFactsAreReadAsTheProvenanceRecordsThem) {
  EXPECT_EQ(cpu_model_from_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9575F 64-Core "
                                   "Processor\nmodel name\t: second\n"),
            "AMD EPYC 9575F 64-Core Processor");
  EXPECT_EQ(cpu_model_from_cpuinfo("processor : 0\nBogoMIPS : 50\n"), "unknown");
  EXPECT_EQ(cpu_model_from_cpuinfo("model name\t:\n"), "");
  EXPECT_EQ(cpu_model_from_cpuinfo("model name\t: Intel(R) Xeon(R) CPU  \n"), "Intel(R) Xeon(R) CPU");
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(12090), "12.9");
  int major = 0, minor = 0;
  nccl_major_minor(22809, major, minor);
  EXPECT_EQ(major, 2);
  EXPECT_EQ(minor, 28);
  nccl_major_minor(23007, major, minor);
  EXPECT_EQ(minor, 30);
  nccl_major_minor(2804, major, minor);
  EXPECT_EQ(major, 2);
  EXPECT_EQ(minor, 8);
}

TEST(TunerTable, MachineMismatchNamesTheFirstDifference) {
  const Machine t{"CPU A", {"GPU X", "GPU Y"}, "13.0"};
  EXPECT_EQ(machine_mismatch(t, {"CPU A", {"GPU Y"}, "13.0"}), "");
  // A table's statements are read trimmed: a model name with a trailing blank still matches.
  EXPECT_EQ(machine_mismatch(t, {"CPU A  ", {"GPU Y "}, "13.0"}), "");
  EXPECT_NE(machine_mismatch(t, {"CPU B", {"GPU X"}, "13.0"}).find("CPU differs"), std::string::npos);
  EXPECT_NE(machine_mismatch(t, {"CPU A", {"GPU X"}, "12.9"}).find("CUDA driver differs"), std::string::npos);
  EXPECT_NE(machine_mismatch(t, {"CPU A", {"GPU Z"}, "13.0"}).find("GPU 'GPU Z' is not a model"), std::string::npos);
  EXPECT_NE(machine_mismatch(t, {"CPU A", {}, "13.0"}).find("no GPU is visible"), std::string::npos);
}

TEST(TunerTable, ErrorsNameTheLine) {
  Table t;
  const std::string text = format_table(sample());
  std::string bad = text;
  bad.replace(bad.find("algo=tree"), 9, "algo=trie");
  const std::string e = parse_table(bad, t);
  EXPECT_NE(e.find("unknown algorithm 'trie'"), std::string::npos) << e;
  EXPECT_EQ(e.rfind("line ", 0), 0u) << e;
  EXPECT_TRUE(t.rules.empty() || e.size() > 0);
  EXPECT_NE(parse_table("arbench-nccl-tuner-table 1\nnccl 2.x\n", t).find("line 2: nccl: expected <major>.<minor>"),
            std::string::npos);
  EXPECT_NE(parse_table("arbench-nccl-tuner-table 1\nnccl 2.28\nmachine cpu A\nmachine gpu G\n", t)
                .find("no 'machine cuda_driver' line"),
            std::string::npos);
  EXPECT_NE(parse_table(text + "nccl 2.28\n", t).find("'nccl' given twice"), std::string::npos);
  EXPECT_NE(parse_table(text + "allreduce nranks=2 nnodes=3 min_bytes=0 max_bytes=1 algo=ring proto=ll channels=0\n", t)
                .find("nnodes=3 is more than nranks=2"),
            std::string::npos);
  EXPECT_NE(parse_table(text + "allreduce nranks=8 nnodes=1 min_bytes=99999999999999999999999 max_bytes=1 algo=ring "
                               "proto=ll channels=0\n", t)
                .find("is not a whole number"),
            std::string::npos);
  EXPECT_EQ(parse_table(text + "\r\n# trailing comment\r\n", t), "");  // CRLF and comments are fine
}

}  // namespace
}  // namespace arbench::tuner
