// Host twin of the copy-engine variants: each rank's program (include/arbench/algo/ce/) run by
// "copy engines" that are CPU threads. Stream 0 runs on the rank's own thread, each copy stream
// on a thread of its own, every stream executing its operations in order as a CUDA stream does:
// a copy is a memcpy, a flag write a release store, a stream wait an acquire poll of the own flag
// word (bounded by the fabric's timeout: a lost peer is a CaseError naming rank, stream, flag and
// writer, not a hang), an event a word set to the rank's op number. ThreadSanitizer then checks
// that every byte a copy or a reduce touches is ordered by those flags, as on the GPU.
#pragma once

#include <memory>

#include "arbench/variant.hpp"
#include "kernels/ce/ce_variant.hpp"

namespace arbench {

std::unique_ptr<CeVariant> make_ce_twin(CeAlgo algo, CeOptions opt = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one).
VariantEntry ce_host_entry(CeAlgo algo);

}  // namespace arbench
