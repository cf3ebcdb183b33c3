// The multi-process mode end to end on the host backend: `mpirun -np {2,3,4} arbench`, one
// process per rank, the host twins reaching their peers through POSIX shared memory.
// Label mpi (tests/CMakeLists.txt); needs Open MPI's mpirun (scripts/setup.sh installs it).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "../cli/phase_json_checks.hpp"
#include "mpi_util.hpp"
#include "results/report.hpp"

namespace {

using nlohmann::json;

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "arbench-mpi-" + name + "-" + std::to_string(::getpid());
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// Names of the cases run and skipped, as the JSON records them.
std::vector<std::string> case_names(const json& doc) {
  std::vector<std::string> names;
  for (const auto& c : doc["arbench"]["cases"]) names.push_back(c["name"]);
  for (const auto& s : doc["arbench"]["skipped"]) names.push_back(s["name"]);
  std::sort(names.begin(), names.end());
  return names;
}

// Names `arbench list` prints (one case a line, skipped ones with a comment).
std::vector<std::string> listed_names(const std::string& output) {
  std::vector<std::string> names;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("arbench", 0) == 0) continue;
    names.push_back(line.substr(0, line.find("  #")));
  }
  std::sort(names.begin(), names.end());
  return names;
}

void expect_every_case_correct(const json& doc, std::size_t samples) {
  ASSERT_FALSE(doc["arbench"]["cases"].empty());
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_TRUE(c["checked"].get<bool>()) << c["name"];
    EXPECT_EQ(c["wrong_elements"], 0) << c["name"];
    EXPECT_EQ(c["samples_us"].size(), samples) << c["name"];
  }
}

}  // namespace

// The issue's acceptance run: 4 processes, the default host sweep from 1K to 1M.
TEST(MpiHost, FourProcessesPrintOneTableAndWriteOneValidJson) {
  const std::string out = temp_path("four.json");
  MpiResult r = run_mpi(4, "run --backend host -b 1K -e 1M --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count_of(r.output, "launch: 4 processes on 1 node"), 1u) << r.output;
  // One table: one banner, one header per family, every case's row once (rows name the case
  // after its family, the heading).
  EXPECT_EQ(count_of(r.output, "| backend host"), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, "\nallreduce "), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, "\nallreduce_rmsnorm "), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, "  reference/bf16/gpus:4/bytes:1024 "), 1u) << r.output;
  // A name longer than the name column stands on a line of its own, its figures on the next.
  EXPECT_EQ(count_of(r.output, "  fused-oneshot/bf16/gpus:4/tokens:256/hidden:8192 ") +
                count_of(r.output, "  fused-oneshot/bf16/gpus:4/tokens:256/hidden:8192\n"),
            1u)
      << r.output;
  EXPECT_EQ(count_of(r.output, " cases run, "), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, " 0 failed"), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, "arbench: wrote " + out), 1u) << r.output;

  const json doc = read_json(out);
  const auto problems = arbench::validate_result_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();
  const json& launch = doc["arbench"]["provenance"]["launch"];
  EXPECT_EQ(launch["launcher"], "mpirun");
  EXPECT_EQ(launch["processes"], 4);
  EXPECT_EQ(launch["nodes"], 1);
  EXPECT_EQ(launch["processes_per_node"], json::array({4}));
  EXPECT_EQ(launch["hosts"].size(), 1u);
  EXPECT_NE(doc["arbench"]["provenance"]["fingerprint_fields"]["launch"].get<std::string>().find("4 processes on 1 node"),
            std::string::npos);
  expect_every_case_correct(doc, 10);
  for (const auto& c : doc["arbench"]["cases"]) EXPECT_EQ(c["world"], 4);

  // The same sweep without MPI names the same cases (one process driving 4 ranks).
  MpiResult alone = run_alone("list --backend host -b 1K -e 1M --gpus 4");
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_EQ(case_names(doc), listed_names(alone.output));
  EXPECT_EQ(leaked_segments(), std::set<std::string>{}) << "a shared-memory segment outlived the run";
}

// --phases and --skew with one process per rank: each process reads the marks of its own rank,
// the processes swap them, and process 0 writes every rank's timeline.
TEST(MpiHost, PhasesAndSkewGatherEveryRanksMarks) {
  const std::string out = temp_path("phases.json");
  MpiResult r = run_mpi(3, "run --backend host --phases --skew 0,10 -b 1K -e 4K -f 4 --family allreduce "
                           "--variants oneshot-pull,oneshot-push,twoshot,ring --samples 3 --warmup 1 "
                           "--pipelined-ops 0 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count_of(r.output, "phases: median of recorded ops, us"), 1u) << r.output;
  const json doc = read_json(out);
  ASSERT_EQ(doc["arbench"]["cases"].size(), 4u * 2 * 2);
  for (const auto& c : doc["arbench"]["cases"]) {
    expect_sound_phases(c);
    EXPECT_EQ(c["phases"]["ranks"].size(), 3u) << c["name"];
    EXPECT_EQ(c["phases"]["clocks_aligned"], true) << "one host, one steady clock";
  }
  EXPECT_EQ(leaked_segments(), std::set<std::string>{}) << "a shared-memory segment outlived the run";
}

// Adaptive sampling with one process per rank: every process must stop after the same batch
// (a process that takes one more batch than its peers waits for them until --timeout), so the
// stopping rule runs on the samples every process sees and on the slowest process's elapsed time.
// A 0.01% noise target no case reaches and a 50 ms budget make every case stop at the budget,
// where processes whose clocks disagree would part ways. --cache cold flushes before each sample.
TEST(MpiHost, AdaptiveSamplingStopsTogetherOnEveryProcess) {
  const std::string out = temp_path("adaptive.json");
  MpiResult r = run_mpi(3, "run --backend host -b 1K -e 16K -f 4 --family allreduce --variants twoshot,ring "
                           "--max-noise 0.01 --min-samples 3 --max-samples 100000 --max-time 0.05 --cache cold "
                           "--warmup 1 --pipelined-ops 0 --timeout 2 -q --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = read_json(out);
  ASSERT_EQ(doc["arbench"]["cases"].size(), 2u * 3);
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["cache"], "cold") << c["name"];
    EXPECT_NE(c["name"].get<std::string>().find("/cold"), std::string::npos) << c["name"];
    EXPECT_EQ(c["sampling"]["stop"], "max_time") << c["name"];
    EXPECT_GE(c["samples_us"].size(), 3u) << c["name"];
  }
  EXPECT_EQ(leaked_segments(), std::set<std::string>{}) << "a shared-memory segment outlived the run";
}

// Every host twin and the reference, both families, in and out of place, on 2 and 3 processes
// (3: a world size that is not a power of two).
TEST(MpiHost, TwoAndThreeProcessesRunEveryTwinCorrectly) {
  for (int np : {2, 3}) {
    // The fused family's shape options only where that family runs (they are refused otherwise).
    for (const char* place : {" --tokens 1,5 --hidden 512", " --in-place --family allreduce"}) {
      const std::string out = temp_path("np" + std::to_string(np) + ".json");
      MpiResult r = run_mpi(np, "run --backend host -b 1K -e 64K -f 8 --samples 3 "
                                "--warmup 1 --pipelined-ops 2 -q --out " + out + place);
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const json doc = read_json(out);
      expect_every_case_correct(doc, 3);
      std::vector<std::string> variants;
      for (const auto& c : doc["arbench"]["cases"]) {
        EXPECT_EQ(c["world"], np);
        variants.push_back(c["variant"]);
      }
      for (const char* v : {"reference", "oneshot-pull", "oneshot-push", "twoshot", "ring"})
        EXPECT_NE(std::find(variants.begin(), variants.end(), v), variants.end()) << v << " did not run; " << np;
      if (std::string(place).find("--tokens") != std::string::npos) {
        for (const char* v : {"fused-oneshot", "fused-twoshot"})
          EXPECT_NE(std::find(variants.begin(), variants.end(), v), variants.end()) << v << " did not run; " << np;
      }
    }
  }
}

// The copy-engine variants with one process per rank: every copy lands in staging or an output
// another process maps, and every flag a stream waits on is written by another process (the host
// twin's copy engines are threads of the process that owns the rank). At 2 and 4 processes (even:
// ce-island runs on the two halves), 1 KiB to 1 MiB.
TEST(MpiHost, CopyEngineVariantsAcrossProcesses) {
  for (int np : {2, 4}) {
    const std::string out = temp_path("ce" + std::to_string(np) + ".json");
    MpiResult r = run_mpi(np, "run --backend host --variants 'ce-*' -b 1K -e 1M -f 32 --samples 3 --warmup 1 "
                              "--pipelined-ops 2 -q --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const json doc = read_json(out);
    expect_every_case_correct(doc, 3);
    std::vector<std::string> variants;
    for (const auto& c : doc["arbench"]["cases"]) variants.push_back(c["variant"]);
    for (const char* v : {"ce-twoshot", "ce-ring", "ce-island"})
      EXPECT_EQ(std::count(variants.begin(), variants.end(), v), 3) << v << " at " << np << " processes";
  }
}

// One process driving 2 ranks and 2 processes of one rank each: the same case names, but
// different fingerprints (the launch is part of it), so `compare` keeps them apart.
TEST(MpiHost, SameCaseNamesAsOneProcessButAnotherFingerprint) {
  const std::string args = "run --backend host --variants 'oneshot-*,ring' -b 4K -e 16K --samples 2 --warmup 1 "
                           "--pipelined-ops 0 --family allreduce -q --out ";
  const std::string mp = temp_path("same-mp.json"), sp = temp_path("same-sp.json");
  MpiResult a = run_mpi(2, args + mp);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  MpiResult b = run_alone(args + sp + " --gpus 2");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  const json dm = read_json(mp), ds = read_json(sp);
  EXPECT_EQ(case_names(dm), case_names(ds));
  EXPECT_NE(dm["arbench"]["provenance"]["fingerprint"], ds["arbench"]["provenance"]["fingerprint"]);
  EXPECT_FALSE(ds["arbench"]["provenance"]["fingerprint_fields"].contains("launch"));
  EXPECT_EQ(ds["arbench"]["provenance"]["launch"]["processes"], 1);
}

// A rank that never runs its ops (planted: ARBENCH_TEST_ABSENT_RANK): its peers time out, and
// every process fails every case with the same message (the lowest failing rank's), within the
// bound; the run goes on, writes its JSON, and exits 1.
TEST(MpiHost, AnAbsentRankFailsEveryCaseOnEveryProcess) {
  const std::string out = temp_path("absent.json");
  MpiResult r = run_mpi(3, "run --backend host --variants oneshot-pull,reference -b 1K -e 2K --family allreduce "
                           "--timeout 1 -q --out " + out, "ARBENCH_TEST_ABSENT_RANK=1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_LT(r.seconds, 4 * (4 * 1 + 10)) << r.output;  // four cases, each well within the World's bound
  EXPECT_EQ(count_of(r.output, "4 cases run, 0 ok, 4 failed"), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, "FAILED allreduce/reference/bf16/gpus:3/bytes:1024: reference: rank 0 waited"), 1u)
      << r.output;
  const json doc = read_json(out);
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "failed") << c.dump();
    EXPECT_NE(c["reason"].get<std::string>().find("rank 1"), std::string::npos) << c.dump();
  }
  EXPECT_EQ(leaked_segments(), std::set<std::string>{});
}

// A process that never comes back (planted: it sleeps before its first case): the others give
// up after the World's bound (4 x --timeout + 10 s), end the run with MPI_Abort and exit 1, and
// no shared-memory segment is left behind.
TEST(MpiHost, StalledProcessEndsEveryProcessWithinTheBound) {
  MpiResult r = run_mpi(3, "run --backend host --variants oneshot-pull -b 1K -e 1K --family allreduce --timeout 1",
                        "ARBENCH_TEST_STALL_PROCESS=1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_LT(r.seconds, 14 + 20) << r.output;  // the bound, and a margin for mpirun's teardown
  EXPECT_NE(r.output.find("at least one of them is stuck or gone"), std::string::npos) << r.output;
  EXPECT_EQ(leaked_segments(), std::set<std::string>{}) << "a shared-memory segment outlived the aborted run";
}

// Only world process 0 speaks: one error message, and every process exits 2.
TEST(MpiHost, UsageErrorsAreReportedOnceWithExit2) {
  MpiResult r = run_mpi(2, "run --backend host --gpus 4 -b 1K -e 1K");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(count_of(r.output, "--gpus 4: under mpirun every case uses all 2 processes"), 1u) << r.output;
  MpiResult c = run_mpi(2, "compare a.json b.json");
  EXPECT_EQ(c.exit_code, 2) << c.output;
  EXPECT_EQ(count_of(c.output, "start it without mpirun"), 1u) << c.output;
}

// `arbench topo` reports each node once, gathered to process 0 (here one node, from a fixture).
TEST(MpiHost, TopoReportsEachNodeOnce) {
  const std::string out = temp_path("topo.json");
  MpiResult r = run_mpi(3, std::string("topo --sysfs-root ") + ARBENCH_SOURCE_DIR +
                               "/tests/fixtures/sysfs/one_switch_four_gpus --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count_of(r.output, "== node 0: "), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, "(processes 0-2) =="), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, "No CUDA query"), 1u) << r.output;  // one node's report, once
  const json doc = read_json(out);
  EXPECT_EQ(doc["schema"], "arbench-topo/1");  // one node: the plain document
}
