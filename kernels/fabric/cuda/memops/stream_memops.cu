#include "kernels/fabric/cuda/memops/stream_memops.hpp"

#include <cuda.h>

#include <cstdint>
#include <string>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/cuda/memops/driver_entry.hpp"

namespace arbench {
namespace {

using WriteFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using WaitFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using ErrorNameFn = CUresult (*)(CUresult, const char**);

class DriverMemops final : public StreamMemops {
 public:
  DriverMemops() {
    for (std::string why : {driver_entry("cuStreamWriteValue32", write_), driver_entry("cuStreamWaitValue32", wait_),
                            driver_entry("cuGetErrorName", name_)})
      if (!why.empty()) missing_ += (missing_.empty() ? "" : ", ") + why;
  }
  const std::string& missing() const { return missing_; }

  void write(cudaStream_t s, std::uint32_t* flag, std::uint32_t value) const override {
    check(write_(s, reinterpret_cast<CUdeviceptr>(flag), value, CU_STREAM_WRITE_VALUE_DEFAULT), "cuStreamWriteValue32");
  }
  void wait_geq(cudaStream_t s, const std::uint32_t* flag, std::uint32_t value) const override {
    check(wait_(s, reinterpret_cast<CUdeviceptr>(flag), value, CU_STREAM_WAIT_VALUE_GEQ), "cuStreamWaitValue32");
  }

 private:
  void check(CUresult r, const char* call) const {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    if (name_ == nullptr || name_(r, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
    throw CaseError(std::string(call) + " failed: " + name + " (" + std::to_string(int(r)) +
                    "); the copy-engine variants need stream memory operations on peer memory");
  }

  WriteFn write_ = nullptr;
  WaitFn wait_ = nullptr;
  ErrorNameFn name_ = nullptr;
  std::string missing_;
};

const DriverMemops& driver_memops() {
  static const DriverMemops d;
  return d;
}

}  // namespace

std::string stream_memops_unsupported() {
  const std::string& m = driver_memops().missing();
  return m.empty() ? std::string() : "the CUDA driver lacks stream memory operations: " + m + "; install a driver for CUDA 12 or later";
}

const StreamMemops& stream_memops() {
  if (std::string why = stream_memops_unsupported(); !why.empty()) throw EnvironmentError(why);
  return driver_memops();
}

}  // namespace arbench
