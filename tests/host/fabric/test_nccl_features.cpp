// What an NCCL beside the default one can run (kernels/fabric/nccl/nccl_features.hpp), at each
// boundary the header cites: driven from 2.14, channel configurations from 2.28, nccl-symm where
// ncclMemAlloc, the windows and the device API all exist. Host logic, no NCCL.
#include <gtest/gtest.h>

#include "kernels/fabric/nccl/nccl_features.hpp"

namespace arbench {
namespace {

TEST(NcclFeatures, DrivenFrom214) {
  EXPECT_EQ(nccl_too_old(21403), "");  // 2.14.3, the first 2.14 release
  EXPECT_EQ(nccl_too_old(22606), "");
  const std::string why = nccl_too_old(21304);
  EXPECT_NE(why.find("NCCL 2.13.4 is older than 2.14, the oldest arbench can drive"), std::string::npos) << why;
  EXPECT_NE(why.find("ncclCommInitRankConfig"), std::string::npos) << why;
  EXPECT_NE(nccl_too_old(2708), "");  // 2.7.8 (the old version coding)
}

TEST(NcclFeatures, ChannelConfigurationsFrom228) {
  EXPECT_EQ(nccl_channels_missing(22803), "");
  EXPECT_EQ(nccl_channels_missing(22909), "");
  const std::string why = nccl_channels_missing(22707);
  EXPECT_NE(why.find("NCCL 2.27.7 reads no tuner plugin of ABI v5 or v6 (from NCCL 2.28)"), std::string::npos) << why;
  EXPECT_NE(nccl_channels_missing(21403), "");
}

TEST(NcclFeatures, SymmetricVariantOnlyWithEveryEntryPoint) {
  EXPECT_EQ(nccl_symmetric_missing(22809, {true, true, true}), "");
  // 2.26: ncclMemAlloc (2.19) only.
  std::string why = nccl_symmetric_missing(22606, {true, false, false});
  EXPECT_EQ(why, "NCCL 2.26.6 has no ncclCommWindowRegister (symmetric windows, NCCL 2.27), ncclDevCommCreate (the "
                 "device API arbench checks its windows with, NCCL 2.28)");
  // 2.27: the windows, no device API.
  why = nccl_symmetric_missing(22703, {true, true, false});
  EXPECT_EQ(why.find("ncclCommWindowRegister"), std::string::npos) << why;
  EXPECT_NE(why.find("NCCL 2.27.3 has no ncclDevCommCreate"), std::string::npos) << why;
  // 2.18: none of them.
  why = nccl_symmetric_missing(21806, {});
  EXPECT_NE(why.find("NCCL 2.18.6 has no ncclMemAlloc (NCCL 2.19), ncclCommWindowRegister"), std::string::npos) << why;
  // A library whose version says 2.28 but which lacks one (a stripped build): the entry points decide.
  EXPECT_NE(nccl_symmetric_missing(22809, {true, true, false}), "");
}

}  // namespace
}  // namespace arbench
