// The mutants of the island protocols' crossing (the hooks of include/arbench/algo/island/).
#include "tests/mutation/run_planted.hpp"

namespace arbench::testing {

template int run_planted<algo::Fault::cross_wait_skipped>(TwinKernel, Scenario);
template int run_planted<algo::Fault::cross_dest_dropped>(TwinKernel, Scenario);

}  // namespace arbench::testing
