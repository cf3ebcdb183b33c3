// NCCL builds side by side (kernels/fabric/nccl/nccl_libraries.hpp), on the host: the installed
// libnccl copied to two paths loads as two objects, each with its own entry points (glibc matches
// a path with a '/' by file identity, not by SONAME, and RTLD_LOCAL keeps their symbols apart); the
// same file twice (or a link to it) is one object; a bare name is answered by a copy already loaded
// with that SONAME, which is why the default library is loaded first; and a library beside the
// default is found by its label.
#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_libraries.hpp"
#include "tests/nccl_loader/loader_fixture.hpp"

namespace arbench::testing {
namespace {

[[maybe_unused]] ::testing::Environment* const kCleanup = ::testing::AddGlobalTestEnvironment(new LoaderFilesCleanup);

// Whether the loader finds libnccl.so.2 by its bare name (ld.so.cache or LD_LIBRARY_PATH),
// asked without loading it into this process.
bool bare_name_found() {
  if (const char* p = std::getenv("LD_LIBRARY_PATH"); p != nullptr) {
    std::string dirs = p;
    for (std::size_t start = 0; start <= dirs.size();) {
      const std::size_t colon = std::min(dirs.find(':', start), dirs.size());
      std::error_code ec;
      if (colon > start && fs::exists(fs::path(dirs.substr(start, colon - start)) / "libnccl.so.2", ec)) return true;
      start = colon + 1;
    }
  }
  FILE* p = popen("ldconfig -p 2>/dev/null", "r");
  if (p == nullptr) return false;
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  pclose(p);
  return text.find("libnccl.so.2 ") != std::string::npos;
}

TEST(NcclSideBySide, TwoCopiesOfOneLibraryAreTwoObjects) {
  ARB_REQUIRE_INSTALLED_NCCL();
  const InstalledCopies& c = installed_copies();
  ARB_IN_CHILD([&]() -> std::string {
    const NcclLoad a = load_nccl_library(c.a), b = load_nccl_library(c.b);
    if (a.problem != NcclLoad::Problem::none || b.problem != NcclLoad::Problem::none)
      return "a copy did not load: " + a.detail + " / " + b.detail;
    if (a.api.version != b.api.version || a.api.version < 22800) return "versions " + std::to_string(a.api.version);
    if (a.api.GetVersion == b.api.GetVersion || a.api.AllReduce == b.api.AllReduce ||
        a.api.CommInitRankConfig == b.api.CommInitRankConfig)
      return "the two copies share their entry points: one object, not two";
    if (a.api.file != c.a || b.api.file != c.b) return "mapped " + a.api.file + " and " + b.api.file;
    if (a.api.build_id.empty() || a.api.build_id != b.api.build_id)
      return "build ids '" + a.api.build_id + "' and '" + b.api.build_id + "' (one build: the same non-empty id)";
    return {};
  });
}

TEST(NcclSideBySide, TheSameFileTwiceIsOneObject) {
  ARB_REQUIRE_INSTALLED_NCCL();
  const InstalledCopies& c = installed_copies();
  const std::string link = link_to(c.a, "link-to-a.so");
  ARB_IN_CHILD([&]() -> std::string {
    const NcclLoad a = load_nccl_library(c.a), again = load_nccl_library(c.a), linked = load_nccl_library(link);
    if (again.api.GetVersion != a.api.GetVersion) return "the same path twice gave two objects";
    if (linked.api.GetVersion != a.api.GetVersion) return "a link to the same file gave another object";
    return {};
  });
}

// The glibc behaviour that orders the loading: once a copy is loaded, the bare name libnccl.so.2
// (the default library's usual name) is answered by that copy (its SONAME), not searched for.
TEST(NcclSideBySide, ABareNameIsAnsweredByACopyAlreadyLoaded) {
  ARB_REQUIRE_INSTALLED_NCCL();
  const InstalledCopies& c = installed_copies();
  ARB_IN_CHILD([&]() -> std::string {
    const NcclLoad a = load_nccl_library(c.a);
    const NcclLoad bare = load_nccl_library("libnccl.so.2");
    if (bare.problem != NcclLoad::Problem::none) return "libnccl.so.2 did not load: " + bare.detail;
    if (bare.api.GetVersion != a.api.GetVersion || bare.api.file != c.a)
      return "the bare name found " + bare.api.file + ", not the copy already loaded (" + c.a + ")";
    return {};
  });
}

// Hence the default library is loaded before any --nccl-lib: else it would be a copy.
TEST(NcclSideBySide, TheDefaultLibraryIsLoadedBeforeTheOthers) {
  ARB_REQUIRE_INSTALLED_NCCL();
  if (!bare_name_found())
    GTEST_SKIP() << "libnccl.so.2 is not found by its bare name here (no ld.so.cache entry, not on LD_LIBRARY_PATH): "
                    "the default is then loaded by its full path, where no copy can answer for it";
  const InstalledCopies& c = installed_copies();
  ARB_IN_CHILD([&]() -> std::string {
    unsetenv("ARBENCH_NCCL_LIBRARY");
    const auto libs = load_nccl_libraries({{"a", c.a}, {"b", c.b}});
    if (libs.size() != 2) return "loaded " + std::to_string(libs.size()) + " libraries";
    if (!NcclApi::available()) return "the default did not load: " + NcclApi::version_or_reason();
    const NcclApi& def = NcclApi::get();
    if (def.file == c.a || def.file == c.b || def.GetVersion == libs[0]->api.GetVersion ||
        def.GetVersion == libs[1]->api.GetVersion)
      return "the default library is a copy (" + def.file + "): it was loaded after them";
    return {};
  });
}

TEST(NcclSideBySide, ALibraryBesideTheDefaultIsFoundByItsLabel) {
  ARB_IN_CHILD([]() -> std::string {
    const auto libs = load_nccl_libraries({{"", ARBENCH_FAKE_NCCL}});
    if (libs.size() != 1 || libs[0]->api.label != "2.29.7" || libs[0]->named)
      return "not labelled by its version: '" + (libs.empty() ? std::string() : libs[0]->api.label) + "'";
    if (libs[0]->size_bytes == 0 || libs[0]->api.path != ARBENCH_FAKE_NCCL) return "size or path not recorded";
    if (find_nccl_library("2.29.7") != libs[0] || nccl_libraries().size() != 1) return "not found by its label";
    if (nccl_api_of_provider("nccl@2.29.7").version != 22907) return "the provider nccl@2.29.7 is another library";
    const Outcome unknown = outcome_of([] { (void)nccl_api_of_provider("nccl@2.30.0"); });
    if (const std::string why = expect_refusal(unknown, 2, "no NCCL library labelled '2.30.0'"); !why.empty()) return why;
    // Named, the same file is labelled by its name; the set given last is the process's.
    const auto named = load_nccl_libraries({{"engine", ARBENCH_FAKE_NCCL}});
    if (named.size() != 1 || named[0]->api.label != "engine" || !named[0]->named) return "the NAME is not its label";
    if (find_nccl_library("2.29.7") != nullptr) return "a library of the previous set is still found";
    if (!load_nccl_libraries({}).empty() || !nccl_libraries().empty()) return "no specs left libraries behind";
    return {};
  });
}

}  // namespace
}  // namespace arbench::testing
