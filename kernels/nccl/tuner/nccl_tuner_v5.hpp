// NCCL's tuner plugin ABI, version 5, declared here from its published layout rather than from
// NCCL's headers: the plugin must build and load without NCCL's development files, into any
// program that has an NCCL 2.28 or newer. Checked against NCCL v2.28.9-1
// (src/include/plugin/tuner/tuner_v5.h, src/include/plugin/nccl_tuner.h, src/include/nccl_common.h);
// NCCL 2.29 and 2.30 still load v5 plugins (2.30 tries ncclTunerPlugin_v6 first, then v5:
// nccl_tuner_v6.hpp; src/plugin/tuner.cc at v2.29.7-1 and v2.30.7-1).
// The static_asserts pin the layout NCCL expects on LP64 Linux.
#pragma once

#include <cstddef>
#include <cstdint>

namespace arbench::nccl_abi {

// ncclResult_t (nccl.h): only success is ever returned: an error from init fails the
// communicator's creation and one from getCollInfo fails the collective (enqueue.cc, 2.28.9).
enum Result : int { kSuccess = 0 };

// ncclDebugLogLevel and the subsystem flags (nccl_common.h).
enum LogLevel : int { kLogNone = 0, kLogVersion = 1, kLogWarn = 2, kLogInfo = 3, kLogAbort = 4, kLogTrace = 5 };
inline constexpr unsigned long kSubsysInit = 0x1, kSubsysTuning = 0x40;
using Logger = void (*)(LogLevel level, unsigned long flags, const char* file, int line, const char* fmt, ...);

// ncclFunc_t: only all-reduce is tuned.
inline constexpr int kFuncAllReduce = 4;

inline constexpr float kIgnore = -1.0f;  // NCCL_ALGO_PROTO_IGNORE: NCCL will not use that cell

struct NvlDomainInfo {  // ncclNvlDomainInfo_v5_t
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
};

struct TunerConstants {  // ncclTunerConstants_v5_t: never written by this plugin
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double llMaxBws[4][3];
  double perChMaxRingLL128Bws[4][3];
  double perChMaxTreeLL128Bws[4][3];
  double perChMaxTreeBws[4][3];
  double perChMaxNVLSTreeBws[4][3];
};

// The entry points of ncclTuner_v5_t, which v6 has with the same arguments. The cost table is a
// flat float[7][3] on NCCL's stack passed as float**: index it as float (*)[3], never as float**
// (NCCL 2.28's example plugin does, and crashes).
using TunerInit = Result (*)(void** context, std::uint64_t commId, std::size_t nRanks, std::size_t nNodes,
                             Logger logFunction, NvlDomainInfo* nvlDomainInfo, TunerConstants* constants);
using TunerGetCollInfo = Result (*)(void* context, int collType, std::size_t nBytes, int numPipeOps,
                                    float** collCostTable, int numAlgo, int numProto, int regBuff, int* nChannels);
using TunerFinalize = Result (*)(void* context);

struct TunerV5 {  // ncclTuner_v5_t
  const char* name;
  TunerInit init;
  TunerGetCollInfo getCollInfo;
  TunerFinalize finalize;
};

static_assert(sizeof(Result) == sizeof(int), "ncclResult_t is an int-sized enum");
static_assert(sizeof(NvlDomainInfo) == 12);
static_assert(sizeof(TunerConstants) == (21 + 63 + 5 * 12) * sizeof(double));
static_assert(offsetof(TunerConstants, hwLatencies) == 21 * sizeof(double));
static_assert(offsetof(TunerConstants, llMaxBws) == 84 * sizeof(double));
static_assert(offsetof(TunerConstants, perChMaxNVLSTreeBws) == 132 * sizeof(double));
static_assert(offsetof(TunerV5, init) == sizeof(void*));
static_assert(offsetof(TunerV5, getCollInfo) == 2 * sizeof(void*));
static_assert(offsetof(TunerV5, finalize) == 3 * sizeof(void*));
static_assert(sizeof(TunerV5) == 4 * sizeof(void*));

}  // namespace arbench::nccl_abi
