#include "kernels/fabric/cuda_fabric.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/op_phases.hpp"
#include "kernels/fabric/stream_wait.hpp"

namespace arbench {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

int cuda_device_count_or_throw() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::string why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e)
                                       : std::string("no CUDA device is visible");
    (void)cudaGetLastError();
    throw EnvironmentError("no usable CUDA device (" + why +
                           "). Install the NVIDIA driver and check CUDA_VISIBLE_DEVICES, or run "
                           "without a GPU: --backend host");
  }
  return n;
}

// ---- DeviceBuffers ------------------------------------------------------------------------

DeviceBuffers::DeviceBuffers(const CudaFabric& owner, std::size_t bytes, bool symmetric)
    : owner_(owner), bytes_(bytes), symmetric_(symmetric) {
  const std::size_t alloc_bytes = std::max<std::size_t>(bytes, 16);
  for (int r = 0; r < owner.world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(owner.device_of(r)));
    void* p = nullptr;
    ARB_CUDA_CHECK(cudaMalloc(&p, alloc_bytes));
    ptrs_.push_back(p);
    ARB_CUDA_CHECK(cudaMemsetAsync(p, 0, alloc_bytes, owner.stream(r)));
  }
  if (!owner.quiesce()) throw HangError("zero-filling a new device buffer did not finish within the bound");
}

DeviceBuffers::~DeviceBuffers() {
  if (!owner_.quiesce()) {
    std::fprintf(stderr, "arbench: %zu device buffers of %zu bytes left allocated: a stream is still busy\n",
                 ptrs_.size(), bytes_);
    return;
  }
  for (std::size_t r = 0; r < ptrs_.size(); ++r) {
    cudaSetDevice(owner_.device_of(int(r)));
    cudaFree(ptrs_[r]);
  }
}

void* DeviceBuffers::peer(int rank, int peer) const {
  if (!symmetric_) throw CaseError("peer() asked of a local (non-symmetric) device buffer");
  if (owner_.device_of(rank) != owner_.device_of(peer))
    throw CaseError("plain device buffers are symmetric only between ranks on one GPU");
  return ptrs_.at(peer);
}

// ---- CudaFabric ---------------------------------------------------------------------------

CudaFabric::CudaFabric(std::vector<int> devices, double timeout_s)
    : devices_(std::move(devices)), timeout_s_(timeout_s) {
  for (int d : devices_) {
    ARB_CUDA_CHECK(cudaSetDevice(d));
    cudaStream_t s;
    cudaEvent_t a, b;
    ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ARB_CUDA_CHECK(cudaEventCreate(&a));
    ARB_CUDA_CHECK(cudaEventCreate(&b));
    streams_.push_back(s);
    start_.push_back(a);
    stop_.push_back(b);
  }
}

CudaFabric::~CudaFabric() {
  // Bounded: after a hang whose kernels never ended, the streams, events and the gate's
  // host-mapped words stay allocated (a kernel may still read them) until the process exits.
  if (!quiesce()) {
    (void)gate_.release();
    return;
  }
  gate_.reset();
  for (std::size_t r = 0; r < streams_.size(); ++r) {
    cudaSetDevice(devices_[r]);
    cudaEventDestroy(start_[r]);
    cudaEventDestroy(stop_[r]);
    cudaStreamDestroy(streams_[r]);
  }
}

void CudaFabric::build_gate(std::unique_ptr<RankBuffers> flags, std::string why_host_only) {
  gate_ = std::make_unique<StartGate>(devices_, streams_, timeout_s_, std::move(flags), std::move(why_host_only));
}

void CudaFabric::release_gate() {
  if (quiesce())
    gate_.reset();
  else
    (void)gate_.release();  // a gate kernel may still run: leave its memory allocated
}

bool CudaFabric::quiesce() const {
  const auto deadline = deadline_in(timeout_s_ * 2);
  bool idle = true;
  for (std::size_t r = 0; r < streams_.size(); ++r) {
    if (cudaSetDevice(devices_[r]) != cudaSuccess) return false;
    try {
      idle = wait_stream(streams_[r], deadline) && idle;
    } catch (const CaseError&) {
      return false;  // a faulted context: nothing can be known to be idle
    }
  }
  return idle;
}

std::string CudaFabric::health() const {
  for (int d : std::set<int>(devices_.begin(), devices_.end())) {
    cudaError_t e = cudaSetDevice(d);
    (void)cudaGetLastError();  // clears an error that is not sticky
    std::size_t free_b = 0, total_b = 0;
    if (e == cudaSuccess) e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess)
      return "GPU " + std::to_string(d) + " reports " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
             "): its CUDA context is unusable until the process exits";
  }
  return {};
}

void CudaFabric::sync_rank(int rank, const char* what) {
  ARB_CUDA_CHECK(cudaSetDevice(devices_[rank]));
  if (!wait_stream(streams_[rank], deadline_in(timeout_s_ * 2)))
    throw HangError(std::string(what) + " on rank " + std::to_string(rank) + " (GPU " + std::to_string(devices_[rank]) +
                    ") did not finish within " + std::to_string(timeout_s_ * 2) + " s");
}

void CudaFabric::upload(int rank, void* dst, const void* src, std::size_t bytes) {
  ARB_CUDA_CHECK(cudaSetDevice(devices_[rank]));
  ARB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, streams_[rank]));
  sync_rank(rank, "an upload");  // the source is the caller's pageable memory
}

void CudaFabric::download(int rank, void* dst, const void* src, std::size_t bytes) {
  ARB_CUDA_CHECK(cudaSetDevice(devices_[rank]));
  ARB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, streams_[rank]));
  sync_rank(rank, "a download");
}

void CudaFabric::launch_all(const RankOp& op) {
  enqueue_two_phase(
      op, world(),
      [this](int r) {
        ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
        return static_cast<Stream>(streams_[r]);
      },
      [this] { begin_op_group(); }, [this] { end_op_group(); });
}

void CudaFabric::sync_all() {
  const auto deadline = deadline_in(timeout_s_ * 2);
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    if (!wait_stream(streams_[r], deadline))
      throw HangError("rank " + std::to_string(r) + " (GPU " + std::to_string(devices_[r]) + ") did not finish within " +
                      std::to_string(timeout_s_ * 2) + " s (twice --timeout); a kernel is stuck (its peers never arrived?)");
  }
}

void CudaFabric::run(const RankOp& op) {
  launch_all(op);
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    ARB_CUDA_CHECK(cudaGetLastError());
  }
  sync_all();
}

double CudaFabric::max_over_ranks_s() const {
  double worst = 0;
  for (int r = 0; r < world(); ++r) {
    float ms = 0;
    ARB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_[r], stop_[r]));
    worst = std::max(worst, double(ms) * 1e-3);
  }
  return worst;
}

IsolatedTimes CudaFabric::time_isolated(const RankOp& op, int samples) {
  if (!gate_) build_gate(nullptr, "the fabric built no device barrier");
  IsolatedTimes out;
  for (int s = 0; s < samples; ++s) {
    const std::uint32_t token = gate_->next_token();
    for (int r = 0; r < world(); ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
      gate_->enqueue(r, token);
      ARB_CUDA_CHECK(cudaEventRecord(start_[r], streams_[r]));
    }
    launch_all(op);
    for (int r = 0; r < world(); ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
      ARB_CUDA_CHECK(cudaEventRecord(stop_[r], streams_[r]));
    }
    gate_->open(token);
    sync_all();
    if (gate_->timed_out(token)) {  // a rank was released alone, after the timeout
      ++out.discarded;
      continue;
    }
    out.samples.push_back(max_over_ranks_s());
    if (auto skew = gate_->skew_s(token)) out.start_skew.push_back(*skew);
  }
  return out;
}

double CudaFabric::time_pipelined(const RankOp& op, int ops, int reps) {
  if (!gate_) build_gate(nullptr, "the fabric built no device barrier");
  // Capture `ops` back-to-back ops of every rank into one graph per rank.
  std::vector<cudaGraph_t> graphs(world(), nullptr);
  std::vector<cudaGraphExec_t> execs(world(), nullptr);
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    ARB_CUDA_CHECK(cudaStreamBeginCapture(streams_[r], cudaStreamCaptureModeRelaxed));
  }
  for (int k = 0; k < ops; ++k) launch_all(op);
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    ARB_CUDA_CHECK(cudaStreamEndCapture(streams_[r], &graphs[r]));
    ARB_CUDA_CHECK(cudaGraphInstantiate(&execs[r], graphs[r], 0));
  }
  auto launch_graphs = [&](bool timed) {
    const std::uint32_t token = gate_->next_token();
    for (int r = 0; r < world(); ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
      gate_->enqueue(r, token);
      if (timed) ARB_CUDA_CHECK(cudaEventRecord(start_[r], streams_[r]));
      ARB_CUDA_CHECK(cudaGraphLaunch(execs[r], streams_[r]));
      if (timed) ARB_CUDA_CHECK(cudaEventRecord(stop_[r], streams_[r]));
    }
    gate_->open(token);
    sync_all();
    return !gate_->timed_out(token);
  };
  launch_graphs(false);  // upload and warm the graphs
  std::vector<double> per_op;
  for (int i = 0; i < reps; ++i)
    if (launch_graphs(true)) per_op.push_back(max_over_ranks_s() / ops);
  for (int r = 0; r < world(); ++r) {
    cudaSetDevice(devices_[r]);
    cudaGraphExecDestroy(execs[r]);
    cudaGraphDestroy(graphs[r]);
  }
  return median_of(per_op);
}

}  // namespace arbench
