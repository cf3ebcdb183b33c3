// The copy-engine variants on GPUs (ce-twoshot, ce-ring, ce-island).
// Purpose: every inter-GPU byte moved by a copy engine (cudaMemcpyAsync between mapped peers),
// 0 SMs for data movement; a small kernel reduces on the receiver (ce_reduce.cu); completion
// crosses GPUs as stream memory operations on peer flag words (kernels/fabric/cuda/memops/stream_memops.hpp),
// with no host round trip per chunk; a rank's own streams are ordered by events, which CUDA sees
// (the driver's advice: an order that stream memory operations alone establish may deadlock).
// Requirements: symmetric input/output, staging and flags (the cuda provider or NCCL windows; in
// one process or one process per GPU); the op starts and ends on the harness's stream, so CUDA
// graph capture takes in the copy streams (forked and joined by events) and replays the program.
// Protocol: include/arbench/algo/ce/ (the programs), shared with the host twin (ce_twin.cpp).
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "arbench/core/cuda_check.hpp"
#include "kernels/ce/ce_kernels.hpp"
#include "kernels/fabric/cuda/memops/stream_memops.hpp"
#include "kernels/gpu_variant.hpp"
#include "kernels/pci_bus_order.hpp"

namespace arbench {
namespace {

// Copy stream `s` of `rank` on `device`, created on first use and kept for the process. CUDA maps
// streams onto a fixed number of hardware queues (CUDA_DEVICE_MAX_CONNECTIONS) round-robin in
// creation order, and a stream wait holds its queue: a copy stream sharing a queue with a stream
// that waits for a peer could stall behind it. Created once, the copy streams of the default
// programs fit beside the fabric's streams (single_gpu raises the queues to 32), where streams
// made and destroyed per case would wrap the round-robin onto the busy queues.
cudaStream_t process_copy_stream(int device, int rank, int s) {
  static std::mutex m;
  static std::map<std::tuple<int, int, int>, cudaStream_t> streams;
  const std::lock_guard<std::mutex> lock(m);
  cudaStream_t& st = streams[{device, rank, s}];
  if (st == nullptr) ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  return st;
}

// A rank's copy streams and the events of its program, on its device.
class RankStreams {
 public:
  RankStreams(int device, int rank, int copy_streams, int events) : device_(device) {
    ARB_CUDA_CHECK(cudaSetDevice(device));
    for (int s = 0; s < copy_streams; ++s) streams_.push_back(process_copy_stream(device, rank, s));
    for (int e = 0; e < events; ++e) {
      cudaEvent_t ev = nullptr;
      ARB_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
      events_.push_back(ev);
    }
  }
  ~RankStreams() {
    cudaSetDevice(device_);  // a destructor reports nothing: the fabric's health check does
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  RankStreams(const RankStreams&) = delete;
  RankStreams& operator=(const RankStreams&) = delete;

  cudaStream_t copy_stream(std::size_t s) const { return streams_.at(s); }
  cudaEvent_t event(int e) const { return events_.at(static_cast<std::size_t>(e)); }

 private:
  int device_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
};

class CeGpu final : public GpuOnly<CeVariant> {
 public:
  using GpuOnly::GpuOnly;

  Support supports(const Case& c, const Fabric& f) const override {
    if (std::string why = stream_memops_unsupported(); !why.empty()) return Support::no(why);
    return GpuOnly::supports(c, f);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    CeVariant::prepare(c, f, b, t);
    memops_ = &stream_memops();
    ranks_.clear();
    ranks_.resize(static_cast<std::size_t>(world_));
    for (int r = 0; r < world_; ++r)
      if (f.drives(r))
        ranks_[static_cast<std::size_t>(r)] = std::make_unique<RankStreams>(
            f.device_of(r), r, static_cast<int>(program(r).streams.size()) - 1, events(r));
  }

  // Enqueues the rank's program on its streams (the caller made its device current). Each
  // stream's operations go in order; across streams, an event's record is enqueued before any
  // wait for it (cudaStreamWaitEvent waits for the record enqueued last), so the streams are
  // enqueued together, each as far as its next wait for an event not yet recorded.
  void launch(int rank, Stream stream) override {
    const CeStreams steps = steps_for(rank);
    const RankStreams& rs = *ranks_.at(static_cast<std::size_t>(rank));
    std::vector<std::size_t> next(steps.size(), 0);
    std::vector<bool> recorded(static_cast<std::size_t>(events(rank)), false);
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const cudaStream_t st = s == 0 ? static_cast<cudaStream_t>(stream) : rs.copy_stream(s - 1);
        for (; next[s] < steps[s].size(); ++next[s], progress = true) {
          const CeStep& op = steps[s][next[s]];
          if (op.kind == algo::CeOpKind::await && !recorded[static_cast<std::size_t>(op.event)]) break;
          if (op.kind == algo::CeOpKind::record) recorded[static_cast<std::size_t>(op.event)] = true;
          enqueue(op, st, rs);
        }
      }
    }
    for (std::size_t s = 0; s < steps.size(); ++s)
      if (next[s] != steps[s].size())
        throw CaseError(std::string(label()) + ": rank " + std::to_string(rank) + "'s program waits for an event " +
                        "no stream records (a defect of the program: please report it)");
  }

 protected:
  std::vector<int> default_order(const Fabric& f) const override { return pci_bus_order(f); }

 private:
  void enqueue(const CeStep& op, cudaStream_t st, const RankStreams& rs) const {
    using K = algo::CeOpKind;
    switch (op.kind) {
      case K::copy: ARB_CUDA_CHECK(cudaMemcpyAsync(op.dst, op.src, op.bytes, cudaMemcpyDefault, st)); break;
      case K::signal: memops_->write(st, op.flag, op.value); break;
      case K::reset:
        if (!opt_.skip_resets) memops_->write(st, op.flag, 0u);
        break;
      case K::wait:
        if (!opt_.skip_waits) memops_->wait_geq(st, op.flag, op.value);
        break;
      case K::reduce: launch_ce_reduce(op.reduce, g_.dtype, st); break;
      case K::record: ARB_CUDA_CHECK(cudaEventRecord(rs.event(op.event), st)); break;
      case K::await: ARB_CUDA_CHECK(cudaStreamWaitEvent(st, rs.event(op.event), 0)); break;
    }
  }

  const StreamMemops* memops_ = nullptr;
  std::vector<std::unique_ptr<RankStreams>> ranks_;
};

}  // namespace

std::unique_ptr<CeVariant> make_ce_gpu(CeAlgo algo, CeOptions opt) { return std::make_unique<CeGpu>(algo, opt); }

VariantEntry ce_gpu_entry(CeAlgo algo) {
  return with_ce_configurations(gpu_entry(text_of(kCeText, algo), [algo] { return make_ce_gpu(algo); }), algo,
                                [](CeAlgo a, CeOptions opt) { return make_ce_gpu(a, opt); });
}

}  // namespace arbench
