// What each peer moves between ranks (peer_traffic.cpp; arbench/traffic.hpp), the schedule it
// picks or a configuration forces: the speed-of-light floor prices it like arbench's own variants.
#pragma once

#include "arbench/traffic.hpp"

namespace arbench {

Traffic flashinfer_pcie_ipc_traffic(const TrafficQuery& q);
Traffic vllm_custom_traffic(const TrafficQuery& q);
Traffic flashinfer_fused_traffic(const TrafficQuery& q);

}  // namespace arbench
