// Measuring with the engine's NCCL (docs/engine-settings.md, "Measuring with your engine's NCCL"):
// ARBENCH_NCCL_LIBRARY names the one library arbench loads, and the version it reports — what
// `arbench run` records as provenance.nccl_version (bench/measure/fabric_factory.cpp) — is that
// library's own ncclGetVersion, not the system NCCL's (this machine's 2.28 stays unloaded). Each
// check runs in a child process (EXPECT_EXIT): the loader keeps its first answer for the process.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/fabric/nccl/nccl_api.hpp"

namespace {

TEST(NcclLibraryChoice, TheNamedLibraryIsLoadedAndItsVersionReported) {
  EXPECT_EXIT(
      {
        setenv("ARBENCH_NCCL_LIBRARY", ARBENCH_FAKE_NCCL, 1);
        const std::string v = arbench::NcclApi::version_or_reason();
        const std::string path = arbench::NcclApi::available() ? arbench::NcclApi::get().path : "";
        std::fprintf(stderr, "version=%s path=%s\n", v.c_str(), path.c_str());
        std::exit(v == "2.29.7" && path == ARBENCH_FAKE_NCCL ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "version=2\\.29\\.7 path=.*libarbench-fake-nccl\\.so");
}

TEST(NcclLibraryChoice, ALibraryThatDoesNotLoadIsNamedNeverReplaced) {
  EXPECT_EXIT(
      {
        setenv("ARBENCH_NCCL_LIBRARY", "/nonexistent/engine-venv/nvidia/nccl/lib/libnccl.so.2", 1);
        const std::string v = arbench::NcclApi::version_or_reason();
        std::fprintf(stderr, "%s\n", v.c_str());
        std::exit(arbench::NcclApi::available() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "could not be loaded:\n  /nonexistent/engine-venv/nvidia/nccl/lib/libnccl\\.so\\.2");
}

}  // namespace
