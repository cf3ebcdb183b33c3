// The correct oneshot-fp8 and twoshot-fp8 (the oneshot-pull and twoshot protocols with the FP8
// payload): the configurations of their exact kernels (symm_model.hpp: the same random,
// bounded and exhaustive points; measured costs: tests/model/README.md), and at each random
// point the check that the FP8 world registers the same flag and epoch-counter words as the
// exact one (sync_words.hpp).
#include "tests/model/fp8/sync_words.hpp"

namespace arbench::model {
namespace {

// Kern's list: the sync-word check at each random point, then its exact kernel's searches.
template <TwinKernel Kern>
void kernel_cases(std::vector<ModelCase>& out) {
  each_symm_point([&]<int W, int B, int T>(const ModelConfig& cfg) { out.push_back(same_sync_case<Kern, W, B, T>(cfg)); });
  symm_random_points<Kern>(out, 20000);
  symm_bounded_points<Kern>(out);
}

}  // namespace

void fp8_cases(std::vector<ModelCase>& out) {
  kernel_cases<TwinKernel::oneshot_fp8>(out);
  kernel_cases<TwinKernel::twoshot_fp8>(out);
}

}  // namespace arbench::model
