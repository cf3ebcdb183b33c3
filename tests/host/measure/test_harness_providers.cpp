// Which fabric a case runs on, on the cuda backend (bench/measure/harness.cpp: provider_for): the
// custom kernels on their symmetric-memory provider's fabric, as --symm-mem and the default's
// rules say (kernels/fabric/peer/symm_provider.hpp), the NCCL variants on NCCL's fabric. The
// fabrics here are host fabrics (the twins run the cases) labelled with their provider, whose
// symmetric memory works or not as each test says; one provider's fabric can also fail to be made
// at all (NCCL missing).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "harness_test_util.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/reference/reference_twin.hpp"
#include "kernels/symm/symm_twins.hpp"

using namespace arbench;
using namespace arbench::testing;

namespace {

// A host fabric that says it is the cuda backend's fabric of one provider.
class ProviderFabric final : public Fabric {
 public:
  ProviderFabric(int world, std::string why_not, std::vector<std::size_t>* reserved)
      : host_(world, 10.0), why_not_(std::move(why_not)), reserved_(reserved) {}
  Backend backend() const override { return Backend::cuda; }
  int world() const override { return host_.world(); }
  std::string describe() const override { return "provider fabric"; }
  std::string symmetric_unsupported_reason() const override { return why_not_; }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement p) override { return host_.alloc(bytes, p); }
  void reserve_symmetric(std::size_t bytes) override { reserved_->push_back(bytes); }
  void upload(int r, void* d, const void* s, std::size_t n) override { host_.upload(r, d, s, n); }
  void download(int r, void* d, const void* s, std::size_t n) override { host_.download(r, d, s, n); }
  void run(const RankOp& op) override { host_.run(op); }
  IsolatedTimes time_isolated(const RankOp& op, int n) override { return host_.time_isolated(op, n); }
  double time_pipelined(const RankOp& op, int ops, int reps) override { return host_.time_pipelined(op, ops, reps); }

 private:
  HostFabric host_;
  std::string why_not_;
  std::vector<std::size_t>* reserved_;
};

// A variant that runs on NCCL's communicators (its op does nothing).
class NcclStub final : public IdleVariant {
 public:
  bool needs_nccl() const override { return true; }
  Placement buffer_placement() const override { return Placement::local; }
};

// oneshot-pull (its host twin standing in for the kernel) and an NCCL variant, on "GPUs".
Registry provider_registry() {
  Registry r;
  VariantEntry pull = symm_host_entry(SymmAlgo::oneshot_pull);
  pull.gpu = pull.host;
  r.add(pull);
  VariantEntry nccl;
  nccl.name = "nccl";
  nccl.gpu = [] { return std::make_unique<NcclStub>(); };
  r.add(nccl);
  return r;
}

const char* kPair = "GPU 1 (rank 1) cannot map the memory of GPU 0 (rank 0): no peer-to-peer path";

struct Box {
  std::map<std::string, std::string> why_not;  // provider -> its symmetric memory's problem
  bool nccl_missing = false;                   // the nccl provider's fabric cannot be made
  std::vector<std::string> made;               // providers whose fabric was created, in order
  std::map<std::string, std::vector<std::size_t>> reserved;
  Registry reg = provider_registry();
  RunConfig cfg = quick_config();
  FabricCache fabrics{ProviderFabricFactory([this](Backend, int w, const FabricEnv&, const std::string& provider) {
    made.push_back(provider);
    if (provider == "nccl" && nccl_missing)
      throw EnvironmentError("NCCL unavailable: libnccl.so.2: cannot open shared object file");
    return std::make_unique<ProviderFabric>(w, why_not[provider], &reserved[provider]);
  })};
  Harness harness{cfg, Backend::cuda, reg, fabrics};
};

Case pull_case(const std::string& symm = "") {
  Case c{"oneshot-pull", Family::allreduce, DType::bf16, 2, 4096, 0, 0, false};
  c.symm = symm;
  return c;
}

Case nccl_case() { return Case{"nccl", Family::allreduce, DType::bf16, 2, 4096, 0, 0, false}; }

}  // namespace

TEST(HarnessProviders, TheDefaultRunsTheCustomKernelsOnCudaWithoutMakingNccl) {
  Box box;
  box.nccl_missing = true;
  ASSERT_TRUE(box.harness.plan(pull_case()).ok);
  const CaseResult r = box.harness.run(pull_case());
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.symm_mem, "cuda");
  EXPECT_EQ(box.made, (std::vector<std::string>{"cuda"})) << "NCCL is not needed, so not even tried";
  // The NCCL variant: skipped with NCCL's reason, not an error that stops the run.
  const Support s = box.harness.plan(nccl_case());
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("NCCL unavailable"), std::string::npos) << s.reason;
  EXPECT_TRUE(box.harness.provider_notes().empty());
}

TEST(HarnessProviders, ARefusedPairMovesTheDefaultToNcclAndTheBannerSaysWhy) {
  Box box;
  box.why_not["cuda"] = kPair;
  ASSERT_TRUE(box.harness.plan(pull_case()).ok);
  const CaseResult r = box.harness.run(pull_case());
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.symm_mem, "nccl");
  ASSERT_EQ(box.harness.provider_notes().size(), 1u);
  EXPECT_NE(box.harness.provider_notes()[0].find(kPair), std::string::npos) << box.harness.provider_notes()[0];
  EXPECT_EQ(box.harness.provider_decisions().at({2, ""}), "nccl");
}

TEST(HarnessProviders, NeitherProviderSkipsTheCustomKernelsNamingThePair) {
  Box box;
  box.why_not["cuda"] = kPair;
  box.nccl_missing = true;
  const Support s = box.harness.plan(pull_case());
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find(kPair), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("NCCL unavailable"), std::string::npos) << s.reason;
}

TEST(HarnessProviders, AnAskedProviderIsTheOneUsed) {
  Box box;
  const CaseResult on_nccl = box.harness.run(pull_case("nccl"));  // --symm-mem all's nccl case
  EXPECT_TRUE(on_nccl.ok) << on_nccl.reason;
  EXPECT_EQ(on_nccl.symm_mem, "nccl");
  const CaseResult on_cuda = box.harness.run(pull_case("cuda"));
  EXPECT_EQ(on_cuda.symm_mem, "cuda");
  box.cfg.symm_mem = "nccl";  // --symm-mem nccl names no provider in the case
  EXPECT_EQ(box.harness.run(pull_case()).symm_mem, "nccl");
  // Asked for cuda where it cannot map a pair: skipped, never moved to nccl.
  Box refused;
  refused.why_not["cuda"] = kPair;
  refused.cfg.symm_mem = "cuda";
  const Support s = refused.harness.plan(pull_case());
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find(kPair), std::string::npos);
}

TEST(HarnessProviders, EachFabricReservesOneArenaForItsLargestCase) {
  Box box;
  std::vector<Case> cases;
  for (std::size_t bytes : {std::size_t(1024), std::size_t(1) << 20, std::size_t(4096)}) {
    Case c = pull_case();
    c.bytes = bytes;
    cases.push_back(c);
    Case n = pull_case("nccl");
    n.bytes = bytes / 2;
    cases.push_back(n);
  }
  for (const Case& c : cases) ASSERT_TRUE(box.harness.plan(c).ok) << c.name();
  box.harness.reserve_symmetric_memory(cases);
  ASSERT_EQ(box.reserved["cuda"].size(), 1u);
  ASSERT_EQ(box.reserved["nccl"].size(), 1u);
  // in, out and the staging scratch of the 1 MiB case: at least 3 MiB; the nccl fabric's half that.
  EXPECT_GE(box.reserved["cuda"][0], 3u << 20);
  EXPECT_LT(box.reserved["nccl"][0], box.reserved["cuda"][0]);
  EXPECT_GE(box.reserved["nccl"][0], 3u << 19);
}

// Another NCCL build (`run --nccl-lib`): its variants, named `<name>@<label>`, run on that
// library's fabric, provider "nccl@<label>", never on the default library's; its windows are
// still NCCL's memory (the case's symm_mem is `nccl`, as the result schema allows); and the
// default library missing does not stop it. (The reference twin stands in for NCCL's all-reduce.)
// Its buffers are symmetric (as nccl-symm's are): the reference reads its peers'.
class NcclLike final : public Variant {
 public:
  NcclLike() : inner_(reference_entry().host()) {}
  // The fabric says cuda (the reference itself runs on the host backend only); its memory is the host's.
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override { inner_->prepare(c, f, b, t); }
  void launch(int rank, Stream s) override { inner_->launch(rank, s); }
  bool needs_nccl() const override { return true; }

 private:
  std::unique_ptr<Variant> inner_;
};

TEST(HarnessProviders, AnotherNcclBuildRunsOnItsOwnFabric) {
  Box box;
  box.nccl_missing = true;  // the default library cannot be loaded here
  VariantEntry plain;
  plain.name = "nccl@2.29.2";
  plain.gpu = [] { return std::make_unique<NcclLike>(); };
  plain.configs = {"ring/ll"};
  plain.make_configured = [](const std::string&) { return std::make_unique<NcclLike>(); };
  box.reg.add(plain);
  VariantEntry symm;
  symm.name = "nccl-symm@2.29.2";
  symm.gpu = [] { return std::make_unique<NcclLike>(); };
  box.reg.add(symm);
  for (const char* v : {"nccl@2.29.2", "nccl@2.29.2[ring/ll]", "nccl-symm@2.29.2"}) {
    const Case c{v, Family::allreduce, DType::bf16, 2, 4096, 0, 0, false};
    ASSERT_TRUE(box.harness.plan(c).ok) << v << ": " << box.harness.plan(c).reason;
    const CaseResult r = box.harness.run(c);
    EXPECT_TRUE(r.ok) << v << ": " << r.reason;
    EXPECT_EQ(r.symm_mem, "nccl") << v;  // NCCL's windows, never "nccl@2.29.2"
  }
  EXPECT_EQ(box.made, (std::vector<std::string>{"nccl@2.29.2"})) << "one fabric for the library, none of the default's";
  // The default's own variant still finds the default missing.
  EXPECT_FALSE(box.harness.plan(nccl_case()).ok);
}
