// Stream memory operations: a 32-bit flag written or waited for by a CUDA stream itself, with no
// kernel and no host thread (cuStreamWriteValue32 / cuStreamWaitValue32, CUDA driver API). The
// copy-engine variants (kernels/ce/) signal across GPUs with them: the address may be a peer's
// memory mapped into this GPU (in this process or, through the cuda provider's descriptors,
// another's), and both capture into CUDA graphs as memory-operation nodes.
//
// arbench never links libcuda: the entry points come from cudaGetDriverEntryPointByVersion (the
// CUDA 12.0 ABI of each call), as kernels/fabric/peer/cuda_driver.cu does for the VMM calls.
//
// A stream wait cannot time out: a wait for a write that never comes holds the stream for ever.
// What bounds it is the fabric's: every op is awaited with a deadline (CudaFabric::sync_all,
// stream_wait.hpp: twice the timeout), after which the harness reports a hang, aborts the fabric
// and the run writes the finished cases (arbench/last_words.hpp) instead of waiting.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace arbench {

class StreamMemops {
 public:
  // `*flag := value` on `s` after everything enqueued on `s` before it, with a memory fence first
  // (CU_STREAM_WRITE_VALUE_DEFAULT): a copy before it is visible to whoever sees the value.
  virtual void write(cudaStream_t s, std::uint32_t* flag, std::uint32_t value) const = 0;
  // Work enqueued on `s` after this waits until (int32_t)(*flag - value) >= 0 (a wrap-safe
  // greater-or-equal: CU_STREAM_WAIT_VALUE_GEQ).
  virtual void wait_geq(cudaStream_t s, const std::uint32_t* flag, std::uint32_t value) const = 0;

 protected:
  ~StreamMemops() = default;
};

// Why this driver has no stream memory operations ("" when it has them).
std::string stream_memops_unsupported();
// The process's; throws EnvironmentError (exit 3) naming what is missing.
const StreamMemops& stream_memops();

}  // namespace arbench
