// The run command's rules for a run of several processes (run/process/multi_process.hpp).
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "../fake_world.hpp"
#include "results/provenance.hpp"
#include "run/process/multi_process.hpp"

using namespace arbench;

namespace {

// A FakeWorld whose peers all chose `backend` too.
FakeWorld agreeing(int rank, int size, Backend backend) {
  FakeWorld w(rank, size);
  w.peers.assign(static_cast<std::size_t>(size), std::string(backend_name(backend)));
  return w;
}

}  // namespace

TEST(MultiProcess, EveryCaseUsesEveryProcess) {
  FakeWorld w = agreeing(1, 4, Backend::host);
  RunConfig cfg;
  resolve_multi_process(cfg, Backend::host, w);
  EXPECT_EQ(cfg.gpus, std::vector<int>{4});
  cfg.gpus = {4};
  EXPECT_NO_THROW(resolve_multi_process(cfg, Backend::host, w));
  cfg.gpus = {2, 4};
  try {
    resolve_multi_process(cfg, Backend::host, w);
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--gpus 2,4: under mpirun every case uses all 4 processes"),
              std::string::npos) << e.what();
  }
}

TEST(MultiProcess, OneProcessIsLeftAlone) {
  SoloWorld w;
  RunConfig cfg;
  cfg.gpus = {2, 4, 8};
  resolve_multi_process(cfg, Backend::single_gpu, w);
  EXPECT_EQ(cfg.gpus, (std::vector<int>{2, 4, 8}));
}

TEST(MultiProcess, RefusesWhatCannotSpanProcesses) {
  RunConfig cfg;
  FakeWorld single = agreeing(0, 2, Backend::single_gpu);
  EXPECT_THROW(resolve_multi_process(cfg, Backend::single_gpu, single), UsageError);
  FakeWorld two_nodes = agreeing(0, 4, Backend::host);
  two_nodes.place({"a", "a", "b", "b"});
  EXPECT_THROW(resolve_multi_process(cfg, Backend::host, two_nodes), UsageError);
  FakeWorld cuda_two_nodes = agreeing(0, 4, Backend::cuda);
  cuda_two_nodes.place({"a", "a", "b", "b"});
  EXPECT_NO_THROW(resolve_multi_process(cfg, Backend::cuda, cuda_two_nodes));
}

TEST(MultiProcess, ProcessesMustPickTheSameBackend) {
  FakeWorld w(0, 3);
  w.peers = {"", "cuda", "host"};
  RunConfig cfg;
  try {
    resolve_multi_process(cfg, Backend::cuda, w);
    FAIL() << "no throw";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("process 2 (node0) host"), std::string::npos) << e.what();
  }
}

TEST(MultiProcess, LaunchInfoCountsProcessesPerNode) {
  FakeWorld w(0, 4);
  w.place({"a", "b", "a", "b"});  // mpirun --map-by node
  const LaunchInfo l = launch_info(w);
  EXPECT_EQ(l.processes, 4);
  EXPECT_EQ(l.hosts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(l.processes_per_node, (std::vector<int>{2, 2}));
  EXPECT_EQ(launch_text(l), "4 processes on 2 nodes (a x2, b x2)");
}

TEST(MultiProcess, TheLaunchIsPartOfTheFingerprintOnlyForSeveralProcesses) {
  Provenance one = host_provenance("arbench", "host");
  EXPECT_EQ(launch_text(one.launch), "1 process");
  for (const auto& [k, v] : fingerprint_fields(one)) EXPECT_NE(k, "launch");
  Provenance four = one;
  four.launch.processes = 4;
  four.launch.processes_per_node = {4};
  Provenance two_by_two = four;
  two_by_two.launch.hosts = {"a", "b"};
  two_by_two.launch.processes_per_node = {2, 2};
  EXPECT_NE(fingerprint(one), fingerprint(four));
  EXPECT_NE(fingerprint(four), fingerprint(two_by_two));
  EXPECT_EQ(to_json(four)["launch"]["processes"], 4);
}

TEST(MultiProcess, StallSwitchIsValidated) {
  EXPECT_EQ(parse_stall_process(nullptr, 4), -1);
  EXPECT_EQ(parse_stall_process("", 4), -1);
  EXPECT_EQ(parse_stall_process("3", 4), 3);
  EXPECT_THROW(parse_stall_process("4", 4), UsageError);
  EXPECT_THROW(parse_stall_process("x", 4), UsageError);
}

TEST(MultiProcess, ACaseRunsOnlyWhereEveryProcessCanRunIt) {
  FakeWorld w(1, 3);
  w.peers = {"\nno P2P on node a\n\n", "", "\n\nnccl missing\n"};
  const auto plan = agree_on_plan(w, {"", "", "mine\nsecond line"});
  EXPECT_EQ(plan, (std::vector<std::string>{"", "no P2P on node a", "mine second line"}));
  SoloWorld one;
  EXPECT_EQ(agree_on_plan(one, {"", "x"}), (std::vector<std::string>{"", "x"}));
}
