// The mutants written in the memory policy (and the unmutated baseline).
#include "tests/mutation/run_planted.hpp"

namespace arbench::testing {

template int run_planted<algo::Fault::none>(TwinKernel, Scenario);
template int run_planted<algo::Fault::store_relaxed>(TwinKernel, Scenario);
template int run_planted<algo::Fault::load_relaxed>(TwinKernel, Scenario);
template int run_planted<algo::Fault::ll_torn>(TwinKernel, Scenario);

}  // namespace arbench::testing
