// In a run of several processes no World collective sits on a per-process error path: the
// unfused variants time their two halves with ops (collectives), and those ran inside prepare(),
// whose errors the harness agrees on in one collective. A process whose prepare() failed before
// them went straight to that agreement while its peers waited in the ops' barriers: mismatched
// collectives (a hang until the World's bound, then MPI_Abort and no files). Now the ops run in
// Variant::prepare_ops, after the processes agreed that prepare() worked. A fake World records
// the collectives in order; a fake fabric's ops start with a barrier, as the GPU fabrics' do.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/fabric/host/host_fabric.hpp"
#include "measure/harness.hpp"
#include "tests/host/fake_world.hpp"
#include "tests/host/measure/harness_test_util.hpp"

namespace arbench {
namespace {

// A host fabric that spans a (fake) World of processes: each op and timed batch starts with a
// barrier over it, as CudaFabric's do.
class ProcessesFabric final : public Fabric {
 public:
  ProcessesFabric(int world, FakeWorld& w) : f_(world), w_(w) {}
  Backend backend() const override { return Backend::host; }
  int world() const override { return f_.world(); }
  World& processes() const override { return w_; }
  std::string describe() const override { return "fake processes"; }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement p) override { return f_.alloc(bytes, p); }
  void upload(int r, void* d, const void* s, std::size_t n) override { f_.upload(r, d, s, n); }
  void download(int r, void* d, const void* s, std::size_t n) override { f_.download(r, d, s, n); }
  void run(const RankOp& op) override {
    w_.barrier("starting an op");
    f_.run(op);
  }
  IsolatedTimes time_isolated(const RankOp& op, int samples) override {
    w_.barrier("starting a timed batch");
    return f_.time_isolated(op, samples);
  }
  double time_pipelined(const RankOp& op, int ops, int reps) override { return f_.time_pipelined(op, ops, reps); }

 private:
  HostFabric f_;
  FakeWorld& w_;
};

TEST(HarnessProcesses, TheUnfusedComponentOpsRunAfterThePreparationIsAgreed) {
  FakeWorld w(0, 2);
  w.peers.assign(2, "");
  const Registry reg = testing::host_registry();
  const RunConfig cfg = testing::quick_config();
  FabricCache fabrics([&w](Backend, int world, const FabricEnv&) { return std::make_unique<ProcessesFabric>(world, w); });
  Harness h(cfg, Backend::host, reg, fabrics);
  const CaseResult r = h.run(Case{"unfused-oneshot", Family::allreduce_rmsnorm, DType::bf16, 2, 4 * 64 * 2, 4, 64, false});
  ASSERT_TRUE(r.ok) << r.reason;
  const auto agreed = std::find(w.log.begin(), w.log.end(), std::string("preparing the case"));
  const auto first_op = std::find(w.log.begin(), w.log.end(), std::string("starting an op"));
  ASSERT_NE(agreed, w.log.end());
  ASSERT_NE(first_op, w.log.end());
  EXPECT_LT(agreed - w.log.begin(), first_op - w.log.begin())
      << "an op (a collective) ran inside prepare(), before the processes agreed it worked";
  bool timed = false;  // the component timings did run (they feed the fusion accounting)
  for (const auto& [k, v] : r.settings) timed = timed || k == "allreduce_only_us";
  EXPECT_TRUE(timed);
}

}  // namespace
}  // namespace arbench
