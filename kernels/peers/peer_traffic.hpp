// What each peer moves between ranks (peer_traffic.cpp; arbench/traffic.hpp), the schedule it
// picks or a configuration forces: the speed-of-light floor prices it like arbench's own variants.
#pragma once

#include <map>
#include <string>

#include "arbench/traffic.hpp"

namespace arbench {

// The flag waits one thread of each peer kernel passes, counted in the PTX a peers build compiled
// (scripts/peer_waits.py), by key: "flashinfer-pcie-ipc/8/unstaged", "vllm-custom/4/2stage",
// "flashinfer-fused/8/twoshot", "flashinfer-pcie-ipc/2". Empty: no count (no peers built, a host
// test): the waits are then the ones written from the peers' code, and each floor says so.
using PeerWaitCounts = std::map<std::string, int>;

Traffic flashinfer_pcie_ipc_traffic_counted(const TrafficQuery& q, const PeerWaitCounts& counted);
Traffic vllm_custom_traffic_counted(const TrafficQuery& q, const PeerWaitCounts& counted);
Traffic flashinfer_fused_traffic_counted(const TrafficQuery& q, const PeerWaitCounts& counted);

// Written waits only (no count): the TrafficFn shape, for the tests and the builds without peers.
inline Traffic flashinfer_pcie_ipc_traffic(const TrafficQuery& q) { return flashinfer_pcie_ipc_traffic_counted(q, {}); }
inline Traffic vllm_custom_traffic(const TrafficQuery& q) { return vllm_custom_traffic_counted(q, {}); }
inline Traffic flashinfer_fused_traffic(const TrafficQuery& q) { return flashinfer_fused_traffic_counted(q, {}); }

// The table this arbench was built with: the peers build's count (generated/peer_waits.cpp, written
// by scripts/peer_waits.py from the adapters' objects), empty in a build without peers.
const PeerWaitCounts& counted_peer_waits();

}  // namespace arbench
