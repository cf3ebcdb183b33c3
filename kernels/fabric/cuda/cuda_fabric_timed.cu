// CudaFabric's timed regimes (cuda_fabric.hpp): isolated samples through the start gate and
// pipelined repetitions of one CUDA graph per rank. With several processes every sample's gate
// opens once all have enqueued (open_gate_together), and the per-sample figures are reduced over
// the processes (maximum) when the batch is done.
#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/capture_scope.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/host/host_op.hpp"

namespace arbench {

double CudaFabric::max_over_ranks_s() const {
  double worst = 0;
  for (int i = 0; i < local_ranks(); ++i) {
    float ms = 0;
    ARB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_[i], stop_[i]));
    worst = std::max(worst, double(ms) * 1e-3);
  }
  return worst;
}

void CudaFabric::open_gate_together(std::uint32_t token, std::exception_ptr failed) {
  const std::string agreed = first_failure(processes_, error_token(failed), "opening the start gate");
  gate_->open(token);  // whatever was enqueued starts now, so no gate waits out its timeout
  if (agreed.empty()) return;
  if (!processes_.multi_process()) std::rethrow_exception(failed);
  throw_agreed(agreed);
}

IsolatedTimes CudaFabric::time_isolated(const RankOp& op, int samples) {
  if (!gate_) build_gate(nullptr, "the fabric built no device barrier");
  gate_->refresh_clocks();  // GPU clocks drift apart: offsets older than a minute are measured again
  // Per sample: this process's time (max over its ranks), whether its gate gave up, its skew
  // (-1: unknown; one process), and across processes its ranks' latest release and minus its
  // earliest (on rank 0's clock) with a flag for unknown; reduced over the processes (max) once
  // the batch is done.
  const std::size_t n = static_cast<std::size_t>(samples);
  std::vector<double> v(6 * n, 0.0);
  std::exception_ptr failed;  // this process's first error: told to the others at the next gate
  for (std::size_t s = 0; s < n; ++s) {
    const std::uint32_t token = gate_->next_token();
    try {
      if (failed) std::rethrow_exception(failed);
      for (int i = 0; i < local_ranks(); ++i) {
        ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
        gate_->enqueue(first_rank_ + i, token);
        ARB_CUDA_CHECK(cudaEventRecord(start_[i], streams_[i]));
      }
      launch_all(op);
      for (int i = 0; i < local_ranks(); ++i) {
        ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
        ARB_CUDA_CHECK(cudaEventRecord(stop_[i], streams_[i]));
      }
    } catch (...) {
      failed = std::current_exception();
    }
    open_gate_together(token, failed);  // throws, on every process, when one has failed
    try {
      sync_all();
      v[s] = max_over_ranks_s();
      v[n + s] = gate_->timed_out(token) ? 1.0 : 0.0;  // a rank was released alone, after the timeout
      const std::optional<double> skew = gate_->skew_s(token);
      v[2 * n + s] = skew && !processes_.multi_process() ? *skew : -1.0;
      const std::optional<ReleaseExtremes> e = gate_->extremes(token);
      v[3 * n + s] = e ? e->latest : 0.0;
      v[4 * n + s] = e ? e->minus_earliest : 0.0;
      v[5 * n + s] = e ? 0.0 : 1.0;
    } catch (...) {
      failed = std::current_exception();
    }
  }
  agree_on_errors(processes_, [&] { if (failed) std::rethrow_exception(failed); }, "ending a timed batch");
  processes_.max(v, "gathering the samples");
  IsolatedTimes out;
  for (std::size_t s = 0; s < n; ++s) {
    if (v[n + s] > 0) {
      ++out.discarded;
      continue;
    }
    out.samples.push_back(v[s]);
    if (!processes_.multi_process()) {
      if (v[2 * n + s] >= 0) out.start_skew.push_back(v[2 * n + s]);
    } else if (v[5 * n + s] == 0) {  // every process knew its ranks' releases on rank 0's clock
      out.start_skew.push_back(std::max(0.0, v[3 * n + s] + v[4 * n + s]) * 1e-9);
    }
  }
  return out;
}

double CudaFabric::time_pipelined(const RankOp& op, int ops, int reps) {
  if (!gate_) build_gate(nullptr, "the fabric built no device barrier");
  // Capture `ops` back-to-back ops of every rank into one graph per rank.
  const std::size_t n_local = devices_.size();
  std::vector<cudaGraph_t> graphs(n_local, nullptr);
  std::vector<cudaGraphExec_t> execs(n_local, nullptr);
  std::exception_ptr failed;
  try {
    // A launch that throws mid-capture must not leave the streams capturing (capture_scope.hpp).
    CaptureScope scope([this](std::size_t i) {
      cudaSetDevice(devices_[i]);
      cudaGraph_t partial = nullptr;
      if (cudaStreamEndCapture(streams_[i], &partial) == cudaSuccess && partial != nullptr) cudaGraphDestroy(partial);
      (void)cudaGetLastError();  // an invalidated capture's error belongs to the failed launch
    });
    for (std::size_t i = 0; i < n_local; ++i) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
      ARB_CUDA_CHECK(cudaStreamBeginCapture(streams_[i], cudaStreamCaptureModeRelaxed));
      scope.begun(i);
    }
    for (int k = 0; k < ops; ++k) launch_all(op);
    for (std::size_t i = 0; i < n_local; ++i) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
      const cudaError_t ended = cudaStreamEndCapture(streams_[i], &graphs[i]);
      scope.ended(i);  // ended whatever it returned (an invalidated capture ends too)
      ARB_CUDA_CHECK(ended);
      ARB_CUDA_CHECK(cudaGraphInstantiate(&execs[i], graphs[i], 0));
    }
  } catch (...) {
    failed = std::current_exception();
  }
  // Per repetition (the first, untimed, uploads and warms the graphs): this process's time per
  // op and whether its gate gave up; reduced over the processes (max).
  std::vector<double> v(2 * static_cast<std::size_t>(reps), 0.0);
  for (int i = -1; i < reps; ++i) {
    const std::uint32_t token = gate_->next_token();
    try {
      if (failed) std::rethrow_exception(failed);
      for (std::size_t r = 0; r < n_local; ++r) {
        ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
        gate_->enqueue(first_rank_ + int(r), token);
        if (i >= 0) ARB_CUDA_CHECK(cudaEventRecord(start_[r], streams_[r]));
        ARB_CUDA_CHECK(cudaGraphLaunch(execs[r], streams_[r]));
        if (i >= 0) ARB_CUDA_CHECK(cudaEventRecord(stop_[r], streams_[r]));
      }
    } catch (...) {
      failed = std::current_exception();
    }
    open_gate_together(token, failed);
    try {
      sync_all();
      if (i >= 0) {
        v[std::size_t(i)] = max_over_ranks_s() / ops;
        v[std::size_t(reps + i)] = gate_->timed_out(token) ? 1.0 : 0.0;
      }
    } catch (...) {
      failed = std::current_exception();
    }
  }
  for (std::size_t i = 0; i < n_local; ++i) {
    cudaSetDevice(devices_[i]);
    if (execs[i]) cudaGraphExecDestroy(execs[i]);
    if (graphs[i]) cudaGraphDestroy(graphs[i]);
  }
  agree_on_errors(processes_, [&] { if (failed) std::rethrow_exception(failed); }, "ending a pipelined batch");
  processes_.max(v, "gathering the pipelined times");
  std::vector<double> per_op;
  for (int i = 0; i < reps; ++i)
    if (v[std::size_t(reps + i)] == 0) per_op.push_back(v[std::size_t(i)]);
  return upper_median(per_op);
}

}  // namespace arbench
