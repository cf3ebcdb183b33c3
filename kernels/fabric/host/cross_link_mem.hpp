// CrossLinkMem: HostMem whose stores into (and data loads from) another island's memory wait
// for the host fabric's cross-island link model (cross_link.hpp) first. For tests that measure
// the island variants against the flat ones on a host fabric with an injected cross-island
// delay: twins made with this policy (make_island_twin_with<CrossLinkMem>, make_twin_with
// <CrossLinkMem>) pay the link on every flag, LL line and data pack their protocol routes through
// the policy; without a link on the fabric (or off a rank thread) it is exactly HostMem.
// Which flat protocols it covers: oneshot-push moves all its bytes in LL lines (all charged);
// oneshot-pull and twoshot load their peers' packs plainly, so only their flags would be.
#pragma once

#include <cstdint>

#include "kernels/fabric/host/cross_link.hpp"
#include "kernels/mem_host.hpp"

namespace arbench {

struct CrossLinkMem : HostMem {
  static void store_release(std::uint32_t* p, std::uint32_t v) {
    CrossLink::charge(p, sizeof v, true);
    HostMem::store_release(p, v);
  }
  static void ll_store(algo::LlLine* dst, const algo::LlLine& l) {
    CrossLink::charge(dst, sizeof l, true);
    HostMem::ll_store(dst, l);
  }
  ARB_HD static algo::Pack load_data(const algo::Pack* p) {
    CrossLink::charge(p, sizeof *p, false);
    return HostMem::load_data(p);
  }
  ARB_HD static algo::Pack load_peer(const algo::Pack* p) {
    CrossLink::charge(p, sizeof *p, false);
    return HostMem::load_peer(p);
  }
  ARB_HD static std::uint32_t load_peer_byte(const std::uint8_t* p) {
    CrossLink::charge(p, 1, false);
    return HostMem::load_peer_byte(p);
  }
  ARB_HD static void store_byte(std::uint8_t* p, std::uint8_t v) {
    CrossLink::charge(p, 1, true);
    HostMem::store_byte(p, v);
  }
  ARB_HD static void store_data(algo::Pack* p, const algo::Pack& v) {
    CrossLink::charge(p, sizeof v, true);
    HostMem::store_data(p, v);
  }
};

}  // namespace arbench
