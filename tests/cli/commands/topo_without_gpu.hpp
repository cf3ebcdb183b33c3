// The check `arbench topo` and `arbench topo --loaded` share on a machine without a GPU: both need
// one, so both must exit 3 with the same message, which names --sysfs-root (read a saved tree).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/cli/cli_util.hpp"

inline void expect_topo_needs_a_gpu(const std::string& args) {
  if (has_nvidia_device_node()) GTEST_SKIP() << "an NVIDIA device node exists here; the no-GPU path cannot be checked";
  const CliResult r = run_arbench(args);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("no CUDA device is usable"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--sysfs-root"), std::string::npos) << r.output;
}
