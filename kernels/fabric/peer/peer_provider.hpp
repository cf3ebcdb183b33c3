// PeerProvider: where the custom kernels' symmetric memory comes from (docs/variants.md,
// "Symmetric memory: two providers").
//
// A provider maps chunks: one allocation of the same size on every rank, every peer's
// allocation mapped into each rank, so that a rank's kernel loads and stores its peers' memory
// directly. A SymmArena (symm_arena.hpp) slices those chunks into buffers. Two providers:
//   cuda  arbench's own peer mappings through the CUDA driver's virtual memory API (cuMemCreate,
//         cuMemMap, cuMemSetAccess; across processes the allocations travel as POSIX file
//         descriptors): cuda_peer_provider.hpp. Needs no NCCL.
//   nccl  NCCL 2.28's symmetric windows (ncclCommWindowRegister + ncclGetLsaPointer), in
//         kernels/fabric/nccl/.
// Mapping is collective: every process of a multi-process run maps its chunks together, and
// they all succeed or all throw the same error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "arbench/core/errors.hpp"

namespace arbench {

// One chunk as this process sees it: base[i][p] is rank p's allocation as the i-th rank this
// process drives addresses it (base[i][own rank]: its own).
struct PeerChunk {
  std::size_t bytes = 0;
  std::vector<std::vector<void*>> base;
};

// A provider that could not map `owner`'s memory into `user` (world ranks): the message names
// the pair and what refused it. An environment problem: the machine lacks that path.
class PeerMapRefused : public EnvironmentError {
 public:
  PeerMapRefused(int user, int owner, const std::string& why)
      : EnvironmentError(why), user_(user), owner_(owner) {}
  int user() const { return user_; }
  int owner() const { return owner_; }

 private:
  int user_, owner_;
};

class PeerProvider {
 public:
  virtual ~PeerProvider() = default;
  // "cuda" or "nccl" (symm_provider.hpp).
  virtual std::string_view name() const = 0;
  // Every chunk's size is a multiple of this.
  virtual std::size_t granularity() const = 0;
  // Maps one chunk of `bytes` (a multiple of granularity()) on every rank this process drives,
  // with every peer's mapped into each. Collective. Throws PeerMapRefused naming the first pair
  // that cannot be mapped, EnvironmentError for anything else; a chunk that throws is released.
  virtual PeerChunk map(std::size_t bytes) = 0;
  // Releases every chunk. Called only once nothing can touch them any more (the streams that
  // ran kernels on them are idle); never throws.
  virtual void release_all() noexcept = 0;
};

}  // namespace arbench
