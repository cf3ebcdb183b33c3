// `run` and `list` with --nccl-lib in-process (no GPU: the host backend), on stand-ins of another
// NCCL (tests/nccl_loader/fake_nccl.cpp: "2.29.7"): the library is loaded and checked before any
// work, its variants `nccl@<label>` join the sweep (skipped on the host backend, with the reason),
// `list` names every library with its version, a value that is no NCCL library is exit 2 (or 3),
// --nccl-lib with no variant of its library selected is exit 2, and the provenance records each
// library. (The executable's side: tests/cli/test_cli_nccl_libs.cpp; on GPUs:
// tests/gpu/nccl/test_nccl_libraries_gpu.cpp.)
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_libraries.hpp"
#include "measure/fabric_factory.hpp"
#include "results/provenance.hpp"
#include "results/result_file.hpp"
#include "run/run_command.hpp"

namespace arbench::testing {
namespace {

RunConfig host_list(std::vector<std::string> libs, std::vector<std::string> variants = {}) {
  RunConfig cfg;
  cfg.backend = "host";
  cfg.gpus = {2};
  cfg.min_bytes = cfg.max_bytes = 1024;
  cfg.families = {Family::allreduce};
  cfg.variants = std::move(variants);
  cfg.nccl_libs = std::move(libs);
  if (!cfg.nccl_libs.empty()) cfg.given.insert("--nccl-lib");
  return cfg;
}

// What `list` prints for `cfg`, and its exit code.
std::pair<int, std::string> list_of(const RunConfig& cfg) {
  ::testing::internal::CaptureStdout();
  const int rc = run_sweep(cfg, true, solo_world());
  return {rc, ::testing::internal::GetCapturedStdout()};
}

TEST(NcclLibrariesRun, ListNamesEveryLibraryWithItsVersionAndItsVariants) {
  const auto [rc, out] = list_of(host_list({ARBENCH_FAKE_NCCL, std::string("engine=") + ARBENCH_FAKE_NCCL_NEXT}));
  ASSERT_EQ(rc, 0) << out;
  // Each library's variants, as cases (skipped here: NCCL needs GPUs) and in the catalogue.
  EXPECT_NE(out.find("allreduce/nccl@2.29.7/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("allreduce/nccl-symm@engine/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("allreduce/nccl/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos) << out;  // unchanged
  EXPECT_NE(out.find("nccl@2.29.7[ring/ll]"), std::string::npos) << out;
  EXPECT_EQ(out.find("nccl@2.29.7[tuned]"), std::string::npos) << out;  // the default's table only
  // Every library with its version, the default first.
  const auto at = out.find("# NCCL libraries (--nccl-lib)");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_NE(out.find("#   nccl: ", at), std::string::npos) << out;
  EXPECT_NE(out.find(std::string("#   nccl@2.29.7: NCCL 2.29.7 ") + ARBENCH_FAKE_NCCL, at), std::string::npos) << out;
  EXPECT_NE(out.find("#   nccl@engine: NCCL 2.29.8", at), std::string::npos) << out;
  // Without --nccl-lib, `list` is what it was.
  const auto [rc0, plain] = list_of(host_list({}));
  EXPECT_EQ(rc0, 0);
  EXPECT_EQ(plain.find("NCCL libraries"), std::string::npos);
  EXPECT_EQ(plain.find('@'), std::string::npos) << plain;
}

// An NCCL from before the upgrade (stand-ins posing as 2.26.6 and 2.27.3, without the symmetric
// memory those releases lack): `nccl@<label>` and its forced configurations, no nccl-symm, and
// `list` says why (kernels/fabric/nccl/nccl_features.hpp).
TEST(NcclLibrariesRun, AnOlderNcclIsListedWithItsConfigurationsButNoSymmetricVariant) {
  const auto [rc, out] = list_of(host_list({ARBENCH_FAKE_NCCL_226, std::string("engine=") + ARBENCH_FAKE_NCCL_227}));
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("allreduce/nccl@2.26.6/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("allreduce/nccl@engine/bf16/gpus:2/bytes:1024  # skipped"), std::string::npos) << out;
  for (const char* config : {"nccl@2.26.6[ring/simple]", "nccl@2.26.6[ring/ll]", "nccl@2.26.6[ring/ll128]",
                             "nccl@2.26.6[tree/simple]", "nccl@2.26.6[tree/ll]", "nccl@engine[ring/ll]"})
    EXPECT_NE(out.find(config), std::string::npos) << config << "\n" << out;
  // No symmetric variant, as a case or in the catalogue; the reason instead.
  EXPECT_EQ(out.find("allreduce/nccl-symm@"), std::string::npos) << out;
  EXPECT_EQ(out.find("nccl-symm@2.26.6 "), std::string::npos) << out;
  EXPECT_EQ(out.find("nccl-symm@engine "), std::string::npos) << out;
  EXPECT_NE(out.find("#   nccl@2.26.6: NCCL 2.26.6 " ARBENCH_FAKE_NCCL_226), std::string::npos) << out;
  EXPECT_NE(out.find("#     no nccl-symm@2.26.6: NCCL 2.26.6 has no ncclCommWindowRegister"), std::string::npos) << out;
  EXPECT_NE(out.find("#     no nccl-symm@engine: NCCL 2.27.3 has no ncclDevCommCreate"), std::string::npos) << out;
  EXPECT_NE(out.find("#     nccl@2.26.6[<algo>/<proto>/ch:N] skipped: NCCL 2.26.6 reads no tuner plugin"),
            std::string::npos)
      << out;
}

TEST(NcclLibrariesRun, AValueThatIsNoNcclLibraryIsRefusedBeforeAnyWork) {
  const std::string text = ::testing::TempDir() + "arbench-not-a-library.txt";
  std::ofstream(text) << "NCCL 2.29.2\n";
  const auto code_of = [](const RunConfig& cfg) {
    try {
      (void)run_sweep(cfg, true, solo_world());
    } catch (const Error& e) {
      return std::make_pair(e.exit_code(), std::string(e.what()));
    }
    return std::make_pair(0, std::string());
  };
  auto [rc, why] = code_of(host_list({text}));
  EXPECT_EQ(rc, 2);
  EXPECT_NE(why.find("--nccl-lib " + text + ": not a shared library"), std::string::npos) << why;
  std::tie(rc, why) = code_of(host_list({ARBENCH_NOT_NCCL}));
  EXPECT_EQ(rc, 2);
  EXPECT_NE(why.find("not an NCCL library: it has no ncclGetVersion"), std::string::npos) << why;
  std::tie(rc, why) = code_of(host_list({ARBENCH_FAKE_NCCL_OLD}));
  EXPECT_EQ(rc, 2);
  EXPECT_NE(why.find("NCCL 2.13.4 is older than 2.14, the oldest arbench can drive"), std::string::npos) << why;
  std::tie(rc, why) = code_of(host_list({ARBENCH_NEEDS_DEP}));
  EXPECT_EQ(rc, 3);
  EXPECT_NE(why.find("the loader cannot load it"), std::string::npos) << why;
  // A library whose variants --variants does not select: the option would change nothing.
  std::tie(rc, why) = code_of(host_list({ARBENCH_FAKE_NCCL}, {"ring"}));
  EXPECT_EQ(rc, 2);
  EXPECT_NE(why.find("--nccl-lib adds the variants of each library it names"), std::string::npos) << why;
  std::remove(text.c_str());
}

TEST(NcclLibrariesRun, TheProvenanceRecordsEveryLibrary) {
  const auto libs = load_nccl_libraries({{"", ARBENCH_FAKE_NCCL}, {"engine", ARBENCH_FAKE_NCCL_NEXT}});
  ASSERT_EQ(libs.size(), 2u);
  Provenance p;
  add_gpu_provenance(p, Backend::cuda, 0);  // no GPU here: the NCCL facts only
  ASSERT_EQ(p.nccl_libraries.size(), 3u);
  EXPECT_EQ(p.nccl_libraries[0].variant, "nccl");  // the default first, as provenance.nccl_version says
  EXPECT_EQ(p.nccl_libraries[0].version, p.nccl_version);
  EXPECT_EQ(p.nccl_libraries[1].variant, "nccl@2.29.7");
  EXPECT_EQ(p.nccl_libraries[1].version, "2.29.7");
  EXPECT_EQ(p.nccl_libraries[1].path, ARBENCH_FAKE_NCCL);
  EXPECT_GT(p.nccl_libraries[1].size_bytes, 0u);
  EXPECT_FALSE(p.nccl_libraries[1].named);
  EXPECT_EQ(p.nccl_libraries[2].variant, "nccl@engine");
  EXPECT_EQ(p.nccl_libraries[2].version, "2.29.8");
  EXPECT_TRUE(p.nccl_libraries[2].named);
  // Written, and read back as compare and settings read it.
  nlohmann::json j = to_json(p);
  ASSERT_TRUE(j.contains("nccl_libraries"));
  EXPECT_EQ(j["nccl_libraries"][1]["build_id"], libs[0]->api.build_id);
  const nlohmann::json doc = {{"benchmarks", nlohmann::json::array()},
                              {"arbench", {{"schema_version", 1}, {"provenance", j}, {"cases", nlohmann::json::array()}}}};
  const ResultFile back = parse_result_json(doc, "r.json");
  ASSERT_EQ(back.nccl_libraries.size(), 3u);
  EXPECT_EQ(back.nccl_libraries[2].label, "engine");
  EXPECT_EQ(back.nccl_libraries[2].version, "2.29.8");
  // A run without --nccl-lib records none (and its provenance keeps today's fields).
  (void)load_nccl_libraries({});
  Provenance plain;
  add_gpu_provenance(plain, Backend::cuda, 0);
  EXPECT_TRUE(plain.nccl_libraries.empty());
  EXPECT_FALSE(to_json(plain).contains("nccl_libraries"));
}

}  // namespace
}  // namespace arbench::testing
