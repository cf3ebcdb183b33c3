// The machine apart from its stack: which fields name a machine, which are its stack, the
// migration of results written before the split (a committed old result), and the stack diff.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "results/machine_stack.hpp"
#include "results/provenance.hpp"
#include "results/result_file.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using nlohmann::json;

// Committed, written by arbench 0.1.0 (5edf474b50dc) before the split: no provenance.machine.
const std::string kOldResult = std::string(ARBENCH_SOURCE_DIR) + "/results/samples/host-cpu-timing-sample.json";

// Two GPUs related by `rel` (a JSON array of arrays: braces alone would read as an object).
json matrix(const char* rel) { return json::array({json::array({"X", rel}), json::array({rel, "X"})}); }

json gpu_provenance() {
  Provenance p;
  p.arbench_version = "0.1.0";
  p.arbench_revision = "abc123";
  p.backend = "cuda";
  p.timing = "gpu";
  p.host_name = "box1";
  p.cpu_model = "AMD EPYC 9555";
  p.driver = "580.65";
  p.cuda_runtime = "13.0";
  p.nccl_version = "2.28.9";
  p.nccl_library = "/usr/lib/x86_64-linux-gnu/libnccl.so.2";
  p.gpus = {{0, "NVIDIA RTX PRO 6000", "12.0", "0000:41:00.0"}, {1, "NVIDIA RTX PRO 6000", "12.0", "0000:42:00.0"}};
  json j = to_json(p);
  j["topology"]["topology"]["relations"]["matrix"] = matrix("PIX");
  add_machine_and_stack(j);
  return j;
}

TEST(MachineStack, MachineIsHardwareStackIsSoftware) {
  const json prov = gpu_provenance();
  const json& fields = prov["machine"]["fields"];
  for (const char* k : {"backend", "host_name", "cpu_model", "gpus", "pcie"}) EXPECT_TRUE(fields.contains(k)) << k;
  for (const char* k : {"driver", "cuda_runtime", "nccl_version", "nccl_library"}) EXPECT_FALSE(fields.contains(k)) << k;
  EXPECT_EQ(fields["gpus"], "NVIDIA RTX PRO 6000/12.0/0000:41:00.0;NVIDIA RTX PRO 6000/12.0/0000:42:00.0");
  EXPECT_EQ(fields["pcie"], "X,PIX;PIX,X");
  EXPECT_EQ(prov["stack"]["nccl_version"], "2.28.9");
  EXPECT_EQ(prov["stack"]["nccl_library"], "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
  EXPECT_EQ(prov["stack"]["arbench_revision"], "abc123");
  EXPECT_EQ(prov["machine"]["id"].get<std::string>().size(), 16u);
}

// The peers built into arbench (docs/variants.md, "Peers") are part of the stack: another
// FlashInfer is a stack change of the same machine, arbench's side (not the platform's).
TEST(MachineStack, AnotherPeerCopyIsAStackChange) {
  json before = gpu_provenance();
  before["peers"] = "FlashInfer 0.6.18 fb28d7242b35";
  add_machine_and_stack(before);
  EXPECT_EQ(before["stack"]["peers"], "FlashInfer 0.6.18 fb28d7242b35");
  json after = before;
  after["peers"] = "FlashInfer 0.6.19 0123456789ab";
  add_machine_and_stack(after);
  EXPECT_EQ(after["machine"]["id"], before["machine"]["id"]);
  const auto changes = stack_changes(stack_of(before), stack_of(after));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].key, "peers");
  EXPECT_FALSE(changes[0].platform);
  EXPECT_EQ(stack_changes_text(changes), "peers FlashInfer 0.6.18 fb28d7242b35 \u2192 FlashInfer 0.6.19 0123456789ab");
}

// Every result records the peers this arbench was built with: each copy's origin, version, commit
// and the SHA256 of every header, and their versions in the stack.
TEST(MachineStack, ProvenanceRecordsThePeersBuiltIn) {
  Provenance p = host_provenance("arbench run", "cuda");
  p.peers = {{"FlashInfer", "checkout /src/flashinfer", "0.6.18", "fb28d7242b3506a2348265962041acc1fb56cca4",
              {{"flashinfer/comm/pcie_ipc_all_reduce.cuh", "f03a"}}}};
  const json j = to_json(p);
  EXPECT_EQ(j["peers"], "FlashInfer 0.6.18 fb28d7242b35");
  EXPECT_EQ(j["stack"]["peers"], "FlashInfer 0.6.18 fb28d7242b35");
  ASSERT_EQ(j["peer_sources"].size(), 1u);
  EXPECT_EQ(j["peer_sources"][0]["origin"], "checkout /src/flashinfer");
  EXPECT_EQ(j["peer_sources"][0]["headers"][0]["sha256"], "f03a");
  p.peers.clear();
  EXPECT_EQ(to_json(p)["peers"], "");
}

TEST(MachineStack, AStackUpgradeKeepsTheMachineHardwareChangesIt) {
  const json before = gpu_provenance();
  for (const char* k : {"driver", "cuda_runtime", "nccl_version", "nccl_library", "arbench_revision"}) {
    json after = before;
    after[k] = "changed";
    after["fingerprint_fields"][k] = "changed";  // what to_json does: the old fingerprint mixes both
    add_machine_and_stack(after);
    EXPECT_EQ(after["machine"]["id"], before["machine"]["id"]) << k;
    const auto changes = stack_changes(stack_of(before), stack_of(after));
    ASSERT_EQ(changes.size(), 1u) << k;
    EXPECT_EQ(changes[0].key, k);
    EXPECT_EQ(changes[0].platform, std::string(k) != "arbench_revision");
  }
  json moved = before;  // another slot: another machine
  moved["fingerprint_fields"]["gpus"] = "NVIDIA RTX PRO 6000/12.0/0000:81:00.0;NVIDIA RTX PRO 6000/12.0/0000:42:00.0";
  add_machine_and_stack(moved);
  EXPECT_NE(moved["machine"]["id"], before["machine"]["id"]);
  json rewired = before;  // same GPUs behind another switch layout
  rewired["topology"]["topology"]["relations"]["matrix"] = matrix("SYS");
  add_machine_and_stack(rewired);
  EXPECT_NE(rewired["machine"]["id"], before["machine"]["id"]);
}

TEST(MachineStack, StackDiffText) {
  const FieldMap a = {{"driver", "580.65"}, {"nccl_version", "2.28.9"}, {"cuda_runtime", "13.0"}};
  FieldMap b = a;
  b["nccl_version"] = "2.29.2";
  b["nccl_library"] = "/opt/nccl/lib/libnccl.so.2";  // recorded by one side only: unknown, not a change
  EXPECT_EQ(stack_changes_text(stack_changes(a, b)), "NCCL 2.28.9 \u2192 2.29.2");
  b["driver"] = "590.10";
  EXPECT_EQ(stack_changes_text(stack_changes(a, b)), "driver 580.65 \u2192 590.10, NCCL 2.28.9 \u2192 2.29.2");
  EXPECT_TRUE(stack_changes(a, a).empty());
}

TEST(MachineStack, OldResultIsMigratedWhenRead) {
  const ResultFile old = load_result_file(kOldResult);
  EXPECT_TRUE(old.migrated);
  EXPECT_EQ(old.fingerprint, "f609c17e3afbdd92");  // kept as written: settings still checks it
  EXPECT_EQ(old.machine_fields, (FieldMap{{"backend", "host"}, {"cpu_model", "AMD EPYC"}, {"gpus", ""},
                                          {"host_name", "vm"}}));
  EXPECT_EQ(old.machine_id, machine_id(old.machine_fields));
  EXPECT_EQ(old.stack.at("arbench_revision"), "5edf474b50dc");
  EXPECT_EQ(old.stack.at("nccl_version"), "");
  EXPECT_EQ(old.stack.count("nccl_library"), 0u);  // not recorded then
  // The same file rewritten by today's arbench (machine and stack added) names the same machine.
  json doc = json::parse(std::ifstream(kOldResult));
  add_machine_and_stack(doc["arbench"]["provenance"]);
  const ResultFile now = parse_result_json(doc, "now.json");
  EXPECT_FALSE(now.migrated);
  EXPECT_EQ(now.machine_id, old.machine_id);
  EXPECT_EQ(now.stack, old.stack);
}

TEST(MachineStack, PlainGoogleBenchmarkHasNoMachine) {
  const json plain = {{"benchmarks", {{{"name", "BM_A"}, {"real_time", 10.0}, {"time_unit", "us"}}}}};
  const ResultFile r = parse_result_json(plain, "plain.json");
  EXPECT_TRUE(r.machine_id.empty());
  EXPECT_FALSE(r.migrated);
}

}  // namespace
}  // namespace arbench
