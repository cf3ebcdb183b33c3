// NCCL's example tuner plugin's file (NCCL_TUNER_CONFIG_FILE; CSV
// `collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff`)
// with the rows of each world size's plan (nccl_plan.hpp): an explicit channel count on every
// row, every size from 0 to the largest measured covered, never LL128 on PCIe, and a header that
// says where it came from and which of the example plugin's pitfalls remain (docs/engine-settings.md).
// Lines stay under the example plugin's 256-character line buffer.
#pragma once

#include <string>
#include <vector>

#include "settings/measured.hpp"
#include "settings/nccl_plan.hpp"

namespace arbench {

// Empty when no plan has example rows and a rule (where NCCL's own choice wins everywhere the
// file would only make things worse).
std::string example_conf(const Measured& m, const std::vector<NcclPlan>& plans);

}  // namespace arbench
