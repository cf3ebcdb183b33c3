// The mutants of protocol decisions (the hooks of include/arbench/algo/faults.hpp).
#include "tests/mutation/run_planted.hpp"

namespace arbench::testing {

template int run_planted<algo::Fault::epoch_stall>(TwinKernel, Scenario);
template int run_planted<algo::Fault::slot_early>(TwinKernel, Scenario);
template int run_planted<algo::Fault::partition_edge>(TwinKernel, Scenario);

}  // namespace arbench::testing
