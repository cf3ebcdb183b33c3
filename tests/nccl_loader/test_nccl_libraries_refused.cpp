// What --nccl-lib refuses before any work (kernels/fabric/nccl/nccl_libraries.hpp), each with its
// exit code and a message naming the value as typed: a path that is no NCCL library (missing, a
// folder, a text file, a shared library without ncclGetVersion, one lacking an entry point every
// NCCL from 2.14 has, an NCCL older than 2.14) is exit 2, and so are libraries that would be one object or
// share one label; an ELF library the loader cannot load (a dependency on no loader path) is exit 3.
// The default library is the installed one, named by its full path (ARBENCH_NCCL_LIBRARY), in
// each child.
#include <fstream>
#include <string>

#include "kernels/fabric/nccl/nccl_libraries.hpp"
#include "tests/nccl_loader/loader_fixture.hpp"

namespace arbench::testing {
namespace {

// The outcome of load_nccl_libraries(specs) in this child, the default being the installed NCCL.
Outcome load_outcome(const std::vector<NcclLibrarySpec>& specs) {
  if (!installed_copies().installed.empty()) setenv("ARBENCH_NCCL_LIBRARY", installed_copies().installed.c_str(), 1);
  return outcome_of([&] { (void)load_nccl_libraries(specs); });
}

#define ARB_EXPECT_REFUSED(specs, code, text) \
  ARB_IN_CHILD([&]() -> std::string { return expect_refusal(load_outcome(specs), (code), (text)); })

TEST(NcclLibrariesRefused, APathThatIsNoLibraryIsUsage) {
  const fs::path dir = loader_dir() / "not-libraries";
  fs::create_directories(dir);
  std::ofstream(dir / "libnccl.so.2.txt") << "NCCL 2.29.2, promise\n";
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"", (dir / "missing.so").string()}}), 2,
                     "--nccl-lib " + (dir / "missing.so").string() + ": no such file");
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"new", dir.string()}}), 2,
                     "--nccl-lib new=" + dir.string() + ": a folder, not a library");
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"", (dir / "libnccl.so.2.txt").string()}}), 2,
                     "libnccl.so.2.txt: not a shared library (no ELF header");
}

TEST(NcclLibrariesRefused, ALibraryThatIsNoNcclIsUsage) {
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"", ARBENCH_NOT_NCCL}}), 2,
                     "libarbench-not-nccl.so: not an NCCL library: it has no ncclGetVersion");
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"", ARBENCH_FAKE_NCCL_PARTIAL}}), 2,
                     "an NCCL-API library without ncclCommInitRankConfig, which arbench calls");
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"old", ARBENCH_FAKE_NCCL_OLD}}), 2,
                     "--nccl-lib old=" ARBENCH_FAKE_NCCL_OLD ": NCCL 2.13.4 is older than 2.14, the oldest arbench can "
                     "drive: it has no ncclCommInitRankConfig");
}

TEST(NcclLibrariesRefused, ALibraryTheLoaderCannotLoadIsEnvironment) {
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"", ARBENCH_NEEDS_DEP}}), 3,
                     "the loader cannot load it (libarbench-loader-dep.so: cannot open shared object file");
}

TEST(NcclLibrariesRefused, OneLabelForTwoLibrariesIsUsage) {
  ARB_REQUIRE_INSTALLED_NCCL();
  const InstalledCopies& c = installed_copies();
  const std::string fake_copy = (loader_dir() / "fake-copy.so").string();
  std::error_code ec;
  fs::copy_file(ARBENCH_FAKE_NCCL, fake_copy, fs::copy_options::overwrite_existing, ec);
  ASSERT_FALSE(ec) << ec.message();
  // Two unnamed libraries reporting one version.
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"", ARBENCH_FAKE_NCCL}, {"", fake_copy}}), 2,
                     "--nccl-lib " + fake_copy + ": reports NCCL 2.29.7, as --nccl-lib " ARBENCH_FAKE_NCCL
                     " does: name them");
  // An unnamed library of the default's version (the installed NCCL's, copied).
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"", c.a}}), 2, "the default library's version");
  // One NAME twice.
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"x", ARBENCH_FAKE_NCCL}, {"x", c.a}}), 2,
                     "--nccl-lib x=" + c.a + ": the name x is taken by --nccl-lib x=" ARBENCH_FAKE_NCCL);
  // Named, the same version as the default is measured (two builds of one release).
  ARB_IN_CHILD([&]() -> std::string {
    const Outcome o = load_outcome({{"rebuilt", c.a}});
    return o.code == 0 ? std::string() : "refused: " + o.what;
  });
}

TEST(NcclLibrariesRefused, OneFileTwiceIsUsage) {
  ARB_REQUIRE_INSTALLED_NCCL();
  const InstalledCopies& c = installed_copies();
  const std::string link = link_to(c.a, "another-name-for-a.so");
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"a", c.a}, {"b", link}}), 2,
                     "--nccl-lib b=" + link + ": the same file as --nccl-lib a=" + c.a);
  // The default library's own file (here through the link the toolkit ships, libnccl.so).
  ARB_EXPECT_REFUSED((std::vector<NcclLibrarySpec>{{"again", c.installed}}), 2, "the default library's own file");
}

}  // namespace
}  // namespace arbench::testing
