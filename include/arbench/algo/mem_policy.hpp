// Memory policies: protocol code is written once, as templates over `Mem`, and instantiated with
// the device policy (kernels/mem_device.cuh: PTX release/acquire at system scope, %globaltimer,
// __syncthreads) for the CUDA kernel and with the host policy (kernels/mem_host.hpp:
// std::atomic_ref acquire/release, steady_clock, yield) for the host twin, which runs the same
// protocol on CPU threads under ThreadSanitizer.
//
// A policy is a struct of static ARB_HD members:
//   void          store_release(uint32_t* flag, uint32_t v)  publish a flag (peer memory ok):
//                                                            st.release.sys / atomic release
//   uint32_t      load_acquire(const uint32_t* flag)         read a flag: ld.acquire.sys / acquire
//   void          ll_store(LlLine* dst, const LlLine& l)     one LL line, each 8-byte half whole
//   LlLine        ll_load(const LlLine* src)                 the same, for reading (no caching)
//   uint64_t      now_ns()                                   a monotonic clock for wait bounds
//   void          pause()                                    between two polls (host: yield)
//   bool          claim(uint32_t* word)                      true for the first caller only;
//                                                            LOCAL memory only (error records)
//   void          block_sync()                               all threads of a block: __syncthreads
//   bool          block_all(bool ok)                         block_sync + AND over the block
//   Pack          load_data(const Pack* p)                   one data pack of memory a peer can see
//   void          store_data(Pack* p, const Pack& v)         (staging, mailbox): a plain 16-byte
//                                                            access, ordered by the flags around it
// The symmetric-memory protocols load and store their data packs plainly, ordered by those
// flags; the island protocols (algo/island/) route every pack of peer-visible memory through
// load_data/store_data, plain in both production policies, so a checking policy sees every
// access. Peers never use atomic read-modify-write on each other's memory (PCIe peers may lack
// native atomics).
//
// BlockCtx says which thread of which block runs the protocol. A host twin runs it in one of two
// modes (kernels/twin_grid.hpp): sequential, every block of a rank one after another as a single
// thread (thread 0 of 1), so protocols must not need two threads of a block to make progress
// together, and block b may only wait for block b of peers; or block-faithful, every block as
// `threads` CPU threads at once, with real barriers.
#pragma once

#include "arbench/core/hd.hpp"

namespace arbench::algo {

struct BlockCtx {
  int block = 0;
  int blocks = 1;
  int thread = 0;
  int threads = 1;
};

}  // namespace arbench::algo
