// The tuner table's edges: two rules that share one boundary byte overlap (bounds are inclusive on
// both ends), 64 channels (NCCL's MAXCHANNELS, which `arbench run` accepts as ch:64) is a valid
// rule and 65 is not, and the version rule the plugin applies (check_nccl_version).
#include <gtest/gtest.h>

#include "arbench/tuner/tuner_table_text.hpp"

namespace arbench::tuner {
namespace {

std::string with_rules(const std::string& rules) {
  return "arbench-nccl-tuner-table 1\nnccl 2.28\nmachine cpu X\nmachine gpu G\nmachine cuda_driver 13.0\n" + rules;
}

TEST(TunerTableEdges, RulesSharingOneBoundaryByteOverlap) {
  Table t;
  const std::string why = parse_table(
      with_rules("allreduce nranks=8 nnodes=1 min_bytes=0 max_bytes=65536 algo=ring proto=ll channels=4\n"
                 "allreduce nranks=8 nnodes=1 min_bytes=65536 max_bytes=131072 algo=ring proto=simple channels=0\n"),
      t);
  EXPECT_NE(why.find("bytes 65536..131072 overlap another rule's 0..65536"), std::string::npos) << why;
  // One byte further they do not; nor do the same bytes on another world size.
  Table ok;
  EXPECT_EQ(parse_table(
                with_rules("allreduce nranks=8 nnodes=1 min_bytes=0 max_bytes=65536 algo=ring proto=ll channels=4\n"
                           "allreduce nranks=8 nnodes=1 min_bytes=65537 max_bytes=131072 algo=ring proto=simple channels=0\n"
                           "allreduce nranks=4 nnodes=1 min_bytes=65536 max_bytes=65536 algo=tree proto=ll channels=0\n"),
                ok),
            "");
  EXPECT_EQ(ok.rules.size(), 3u);
}

TEST(TunerTableEdges, SixtyFourChannelsAreAValidRuleSixtyFiveAreNot) {
  Table t;
  ASSERT_EQ(parse_table(with_rules("allreduce nranks=8 nnodes=1 min_bytes=0 max_bytes=1 algo=ring proto=ll channels=64\n"), t),
            "");
  ASSERT_EQ(t.rules.size(), 1u);
  EXPECT_EQ(t.rules[0].channels, 64);
  EXPECT_EQ(max_channels(t.rules, 8, 1), 64);
  // And what is written with 64 reads back.
  Table back;
  EXPECT_EQ(parse_table(format_table(t), back), "");
  EXPECT_EQ(back.rules.at(0).channels, 64);
  Table bad;
  EXPECT_NE(parse_table(with_rules("allreduce nranks=8 nnodes=1 min_bytes=0 max_bytes=1 algo=ring proto=ll channels=65\n"), bad)
                .find("channels=65 is out of range"),
            std::string::npos);
}

TEST(TunerTableEdges, AnotherMinorIsAWarningAnotherMajorARefusal) {
  for (int code : {22800, 22809, 22999}) {
    int major = 0, minor = 0;
    nccl_major_minor(code, major, minor);
    const NcclVersionCheck c = check_nccl_version(2, 28, code);
    EXPECT_EQ(c.refuse, "") << code;
    EXPECT_EQ(c.warn.empty(), minor == 28) << code << ": " << c.warn;
  }
  EXPECT_NE(check_nccl_version(2, 28, 23007).warn.find("measured with NCCL 2.28, applied under NCCL 2.30"), std::string::npos);
  EXPECT_NE(check_nccl_version(2, 28, 30000).refuse.find("another major version"), std::string::npos);
  EXPECT_EQ(check_nccl_version(2, 28, 30000).warn, "");
}

}  // namespace
}  // namespace arbench::tuner
