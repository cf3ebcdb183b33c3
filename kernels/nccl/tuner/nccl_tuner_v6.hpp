// NCCL's tuner plugin ABI, version 6, declared from its published layout (as v5 is: no NCCL
// headers). Read at NCCL v2.30.7-1, src/include/plugin/tuner/tuner_v6.h: v5's three entry points
// with the same arguments (ncclTunerConstants_v6_t and ncclNvlDomainInfo_v6_t are typedefs of the
// v5 structs), plus an optional getChunkSize that NCCL calls only when it is not null
// (src/enqueue.cc, v2.30.7-1). NCCL 2.30.3..2.30.7 look up ncclTunerPlugin_v6 first, then v5
// (src/plugin/tuner.cc); 2.28.9 and 2.29.7 look up v5 first. No release tag read (up to v2.30.7-1)
// has a v7, so none is exported.
#pragma once

#include "kernels/nccl/tuner/nccl_tuner_v5.hpp"

namespace arbench::nccl_abi {

struct TunerV6 {  // ncclTuner_v6_t
  const char* name;
  TunerInit init;
  TunerGetCollInfo getCollInfo;
  TunerFinalize finalize;
  // null: NCCL keeps its own chunk size (this plugin never changes it)
  Result (*getChunkSize)(void* context, int collType, std::size_t nBytes, int algo, int proto, int nChannels,
                         std::size_t* chunkSize);
};

static_assert(offsetof(TunerV6, init) == offsetof(TunerV5, init));
static_assert(offsetof(TunerV6, getCollInfo) == offsetof(TunerV5, getCollInfo));
static_assert(offsetof(TunerV6, finalize) == offsetof(TunerV5, finalize));
static_assert(offsetof(TunerV6, getChunkSize) == 4 * sizeof(void*));
static_assert(sizeof(TunerV6) == 5 * sizeof(void*));

}  // namespace arbench::nccl_abi
