// Whether NCCL's load/store-accessible (LSA) team is the world, host code only so it is tested
// without NCCL (tests/host/fabric/test_lsa_team.cpp).
//
// The custom kernels reach peer p's window at ncclGetLsaPointer(win, offset, p). That function
// never fails: it is the LSA team's base + p x stride, with p taken as an LSA rank. It is rank p's
// memory only when the LSA team is the whole world and LSA ranks are world ranks. NCCL builds the
// team from its own view of the node (host hash, P2P reachability); when that differs from the
// launcher's (containers with different host names on one machine, a GPU pair NCCL will not use
// P2P for), peers beyond the team get addresses nothing is mapped at. The device communicator's
// lsaSize / lsaRank say what NCCL built, so they are compared before any pointer is handed out.
#pragma once

#include <string>

namespace arbench {

// Empty when rank `rank` of `world` sits in an LSA team of the whole world at its own rank;
// else why its peers' window addresses cannot be used, and what to check.
inline std::string lsa_team_problem(int world, int rank, int lsa_size, int lsa_rank) {
  if (lsa_size == world && lsa_rank == rank) return {};
  return "NCCL's load/store team (LSA) of rank " + std::to_string(rank) + " holds " + std::to_string(lsa_size) +
         " of the " + std::to_string(world) + " ranks (its LSA rank is " + std::to_string(lsa_rank) +
         "): NCCL split the GPUs differently from this run (e.g. processes in containers with different host "
         "names, or a GPU pair NCCL does not reach peer-to-peer), so ncclGetLsaPointer would give addresses with "
         "nothing mapped for the ranks outside the team. The custom kernels and nccl-symm are skipped; run the "
         "processes under one host name, and check peer-to-peer access with `arbench topo`";
}

}  // namespace arbench
