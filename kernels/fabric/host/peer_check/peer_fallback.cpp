// How a GPU fabric settles its peer paths (peer_fallback.hpp).
#include "kernels/fabric/host/peer_check/peer_fallback.hpp"

#include "arbench/core/errors.hpp"

namespace arbench {

std::string fatal_fault_message(const std::string& fatal) {
  return "a GPU faulted during the functional peer-to-peer check: " + fatal +
         ". The run stops here with the cases measured so far (rebuilding the fabric would fault again). Check "
         "the kernel log for an Xid (dmesg | grep -i xid) and nvidia-smi, then rerun; see docs/troubleshooting.md";
}

PeerCheckOutcome run_fabric_peer_check(const FabricPeerCheck& how) {
  PeerCheckOutcome out;
  std::string fatal;
  out.symmetric_reason = how.setup_failure;
  if (out.symmetric_reason.empty()) {
    try {
      out.probe_memory = how.map_probe_memory();
    } catch (const Error& e) {  // the pair the provider could not map, NCCL refusing the window ...
      out.symmetric_reason = e.what();
    }
  }
  if (out.symmetric_reason.empty()) {
    CheckedPeers c = how.check_mapped(*out.probe_memory);
    out.access = std::move(c.access);
    out.stuck = !c.idle;
    fatal = c.fatal;
    out.symmetric_reason = broken_peer_reason(out.access);
    if (!out.stuck) out.probe_memory.reset();
  } else if (how.check_bare) {
    try {
      CheckedPeers c = how.check_bare();
      out.access = std::move(c.access);
      fatal = c.fatal;
    } catch (const Error& e) {  // not even bare memory: no pair is trusted
      out.access = PeerAccess(how.world, "none (the check could not run)", 0);
      for (int a = 0; a < how.world; ++a)
        for (int b = 0; b < how.world; ++b)
          if (a != b) {
            out.access.at(a, b).path = PeerPath::broken;
            out.access.at(a, b).detail = std::string("the functional check could not run: ") + e.what();
          }
    }
  }
  if (!fatal.empty()) throw DeviceFaultError(fatal_fault_message(fatal));
  return out;
}

bool peer_reaches(const PeerAccess* checked, int rank, int peer) {
  if (rank == peer) return true;
  if (checked == nullptr || rank < 0 || peer < 0 || rank >= checked->n || peer >= checked->n) return false;
  return checked->at(rank, peer).path == PeerPath::ok;
}

}  // namespace arbench
