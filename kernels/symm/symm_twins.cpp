#include "kernels/symm/symm_twins.hpp"

#include "arbench/algo/oneshot_pull.hpp"
#include "arbench/algo/oneshot_push.hpp"
#include "arbench/algo/twoshot.hpp"
#include "kernels/mem_host.hpp"

namespace arbench {
namespace {

// Runs every block of one rank in order on the calling thread; stops at the first timeout
// (the error is recorded; peers waiting on the missing blocks time out on their own).
template <SymmAlgo A, DType D>
void run_twin(const algo::SymmArgs& a, int blocks) {
  for (int b = 0; b < blocks; ++b) {
    const algo::BlockCtx c{b, blocks, 0, 1};
    bool ok = false;
    if constexpr (A == SymmAlgo::oneshot_pull) ok = algo::oneshot_pull_block<HostMem, D>(a, c);
    if constexpr (A == SymmAlgo::oneshot_push) ok = algo::oneshot_push_block<HostMem, D>(a, c);
    if constexpr (A == SymmAlgo::twoshot) ok = algo::twoshot_block<HostMem, D>(a, c);
    if (!ok) return;
  }
}

template <SymmAlgo A>
class SymmTwin final : public SymmVariant {
 public:
  explicit SymmTwin(SymmOptions opt) : SymmVariant(A, opt) {}

  void launch(int rank, Stream /*stream*/) override {
    const algo::SymmArgs a = args_for(rank);
    switch (dtype_) {  // the one dtype -> template switch
      case DType::bf16: return run_twin<A, DType::bf16>(a, blocks());
      case DType::fp16: return run_twin<A, DType::fp16>(a, blocks());
      case DType::fp32: return run_twin<A, DType::fp32>(a, blocks());
    }
  }

 protected:
  int choose_blocks(const Fabric& /*f*/, const Tuning& t, std::size_t packs) const override {
    return algo::SymmLaunchPolicy::blocks(packs, algo::SymmLaunchPolicy::kHostSms, 1, t.blocks);
  }
  int threads() const override { return 1; }
};

}  // namespace

std::unique_ptr<Variant> make_symm_twin(SymmAlgo algo, SymmOptions opt) {
  switch (algo) {
    case SymmAlgo::oneshot_pull: return std::make_unique<SymmTwin<SymmAlgo::oneshot_pull>>(opt);
    case SymmAlgo::oneshot_push: return std::make_unique<SymmTwin<SymmAlgo::oneshot_push>>(opt);
    case SymmAlgo::twoshot: return std::make_unique<SymmTwin<SymmAlgo::twoshot>>(opt);
  }
  return nullptr;
}

VariantEntry oneshot_pull_host_entry() {
  VariantEntry e;
  e.name = "oneshot-pull";
  e.family = Family::allreduce;
  e.summary = "barrier, every rank reads all peers' data and reduces it (one flag round trip)";
  e.host = [] { return make_symm_twin(SymmAlgo::oneshot_pull); };
  return e;
}

VariantEntry oneshot_push_host_entry() {
  VariantEntry e;
  e.name = "oneshot-push";
  e.family = Family::allreduce;
  e.summary = "every rank writes its data into each peer's scratch with in-band LL flags; no barrier";
  e.host = [] { return make_symm_twin(SymmAlgo::oneshot_push); };
  return e;
}

VariantEntry twoshot_host_entry() {
  VariantEntry e;
  e.name = "twoshot";
  e.family = Family::allreduce;
  e.summary = "reduce-scatter (each rank owns 1/N) then all-gather, on symmetric memory";
  e.host = [] { return make_symm_twin(SymmAlgo::twoshot); };
  return e;
}

}  // namespace arbench
