// NCCLs older than the default's 2.28 beside it (kernels/fabric/nccl/nccl_features.hpp): from
// 2.14 they load, with the symmetric-memory entry points they lack left null, and each says what it
// cannot run (`list`: nccl_library_limits); as the default library, arbench still needs 2.28. On
// stand-ins posing as 2.26.6 (no windows, no device API) and 2.27.3 (no device API), in children.
#include <string>

#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_libraries.hpp"
#include "tests/nccl_loader/loader_fixture.hpp"

namespace arbench::testing {
namespace {

std::string limits_text(const NcclLibrary& lib) {
  std::string all;
  for (const std::string& l : nccl_library_limits(lib)) all += l + "\n";
  return all;
}

TEST(NcclOlderLibraries, A226LoadsWithoutSymmetricMemoryAndSaysWhy) {
  ARB_IN_CHILD([]() -> std::string {
    const auto libs = load_nccl_libraries({{"", ARBENCH_FAKE_NCCL_226}});
    if (libs.size() != 1 || libs[0]->api.label != "2.26.6") return "not loaded as nccl@2.26.6";
    const NcclApi& api = libs[0]->api;
    if (api.AllReduce == nullptr || api.CommInitRankConfig == nullptr) return "its required entry points are missing";
    if (api.MemAlloc == nullptr || api.MemFree == nullptr) return "ncclMemAlloc (2.19) was not kept";
    if (api.CommWindowRegister != nullptr || api.DevCommCreate != nullptr) return "entry points it lacks are not null";
    const std::string l = limits_text(*libs[0]);
    for (const char* want :
         {"no nccl-symm@2.26.6: NCCL 2.26.6 has no ncclCommWindowRegister (symmetric windows, NCCL 2.27), "
          "ncclDevCommCreate (the device API",
          "nccl@2.26.6[<algo>/<proto>/ch:N] skipped: NCCL 2.26.6 reads no tuner plugin of ABI v5 or v6"})
      if (l.find(want) == std::string::npos) return "the limits do not say '" + std::string(want) + "':\n" + l;
    return {};
  });
}

TEST(NcclOlderLibraries, A227HasWindowsButNoDeviceApi) {
  ARB_IN_CHILD([]() -> std::string {
    const auto libs = load_nccl_libraries({{"engine", ARBENCH_FAKE_NCCL_227}});
    if (libs.size() != 1) return "not loaded";
    const NcclApi& api = libs[0]->api;
    if (api.CommWindowRegister == nullptr || api.CommWindowDeregister == nullptr) return "its windows were not kept";
    if (api.DevCommCreate != nullptr || api.DevCommDestroy != nullptr) return "a device API it lacks";
    const std::string l = limits_text(*libs[0]);
    if (l.find("no nccl-symm@engine: NCCL 2.27.3 has no ncclDevCommCreate") == std::string::npos ||
        l.find("ncclCommWindowRegister") != std::string::npos)
      return "the limits:\n" + l;
    return {};
  });
}

TEST(NcclOlderLibraries, A229HasNoLimits) {
  ARB_IN_CHILD([]() -> std::string {
    const auto libs = load_nccl_libraries({{"", ARBENCH_FAKE_NCCL}});
    const std::string l = libs.size() == 1 ? limits_text(*libs[0]) : "not loaded";
    return l.empty() ? std::string() : "limits: " + l;
  });
}

// As the default library (ARBENCH_NCCL_LIBRARY), 2.28 is still needed: its custom kernels' peer
// memory is NCCL's symmetric windows.
TEST(NcclOlderLibraries, AsTheDefaultAnOlderNcclIsRefused) {
  for (const char* lib : {ARBENCH_FAKE_NCCL_226, ARBENCH_FAKE_NCCL_227})
    ARB_IN_CHILD([&]() -> std::string {
      setenv("ARBENCH_NCCL_LIBRARY", lib, 1);
      const std::string why = NcclApi::version_or_reason();
      if (NcclApi::available() || why.find("is too old: arbench needs NCCL >= 2.28 as its default library (an older "
                                           "one can be measured beside it, from 2.14: arbench run --nccl-lib)") == std::string::npos)
        return "as the default: " + why;
      return {};
    });
}

}  // namespace
}  // namespace arbench::testing
