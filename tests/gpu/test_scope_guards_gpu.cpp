// Scope guards on a GPU (kernels/fabric/cuda/capture_scope.hpp, op_phases.hpp): an op that throws
// while time_pipelined captures its ranks' streams leaves no stream capturing, and the next op
// really runs (it writes its value; a stream left capturing would only record it). Host halves:
// tests/host/fabric/test_capture_scope.cpp, test_two_phase_launch.cpp. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "gpu_test_util.hpp"
#include "kernels/fabric/cuda/single_gpu_fabric.hpp"

using namespace arbench;

TEST(ScopeGuardsGpu, AThrowInsideACaptureLeavesTheStreamsUsable) {
  ARB_REQUIRE_GPUS(1);
  SingleGpuFabric f(2, 0, 5.0);
  auto buf = f.alloc(sizeof(std::uint32_t), Placement::local);
  int launches = 0;
  const RankOp failing([&](int rank, Stream s) {
    if (++launches == 3) throw std::runtime_error("the second op's launch failed");
    ASSERT_EQ(cudaMemsetAsync(buf->local(rank), 0x11, sizeof(std::uint32_t), static_cast<cudaStream_t>(s)), cudaSuccess);
  });
  EXPECT_THROW(f.time_pipelined(failing, 4, 2), std::runtime_error);
  for (int r = 0; r < 2; ++r) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
    ASSERT_EQ(cudaStreamIsCapturing(f.stream(r), &status), cudaSuccess);
    EXPECT_EQ(status, cudaStreamCaptureStatusNone) << "rank " << r << "'s stream is still capturing";
  }
  const RankOp writes([&](int rank, Stream s) {
    ASSERT_EQ(cudaMemsetAsync(buf->local(rank), 0x5a, sizeof(std::uint32_t), static_cast<cudaStream_t>(s)), cudaSuccess);
  });
  f.run(writes);
  for (int r = 0; r < 2; ++r) {
    std::uint32_t got = 0;
    f.download(r, &got, buf->local(r), sizeof got);
    EXPECT_EQ(got, 0x5a5a5a5au) << "rank " << r << ": the op after the failed capture did not run";
  }
}
