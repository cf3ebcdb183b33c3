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
//   Pack          load_data(const Pack* p)                   one data pack of this rank's own memory
//                                                            that a peer can see (own staging, own
//                                                            ring slot): one plain 16-byte load
//                                                            (ld.global.v4 / *p)
//   Pack          load_peer(const Pack* p)                   the same load of another rank's memory
//                                                            (a peer's staging or gather rows) or of
//                                                            host memory mapped into this GPU (an
//                                                            island's mailbox on the host path): a
//                                                            PCIe round trip. The model checker fails
//                                                            a load_data of another rank's memory;
//                                                            scripts/round_trips.py counts the waits
//                                                            on load_peer (docs/round-trips.md)
//   Pack          load_data_cg(const Pack* p)                load_data, bypassing L1 (own ring slots the
//                                                            peer rewrites: ld.global.cg.v4)
//   void          store_data(Pack* p, const Pack& v)         one plain 16-byte store (st.global.v4)
//   void          store_byte(uint8_t* p, uint8_t v)          one byte of own memory a peer reads (an
//                                                            FP8 unit's scale: st.global.u8)
//   uint32_t      load_peer_byte(const uint8_t* p)           one byte of another rank's memory, like
//                                                            load_peer (ld.global.u8)
//   uint32_t      counter_load(const uint32_t* c)            the per-block epoch / per-channel ring
//   void          counter_store(uint32_t* c, uint32_t v)     transfer counter (own memory, plain
//                                                            ld/st; kernel boundaries order it)
// Data packs are plain loads and stores ordered by those flags, and every access to memory a peer
// can see goes through load_data/load_peer/load_data_cg/store_data (bytes: store_byte/
// load_peer_byte), never `p[k]`: the model checker's
// policy (tests/model/) acts only on what the policy is asked, and the PTX check
// (scripts/ptx_memory_ops.py) finds each operation's instructions by the policy line that emitted
// them; the island protocols (algo/island/) follow the same rule, and their cross-island link
// policy (kernels/fabric/host/cross_link_mem.hpp) charges the link on these calls. A loop whose
// iterations are units of work (or that a thread runs at most once) says so on its `for` line
// with a `round-trips:` comment, which scripts/round_trips.py reads; it changes no code. The rank's
// private buffers (input, output, residual) stay plain. Peers never use atomic
// read-modify-write on each other's memory (PCIe peers may lack native atomics).
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
