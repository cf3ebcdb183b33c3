// CaptureScope: a stream capture is ended on every path (host code only, so the rule is tested
// without a GPU: tests/host/fabric/test_capture_scope.cpp; on a GPU: tests/gpu/test_scope_guards_gpu.cpp).
//
// cudaStreamBeginCapture / cudaStreamEndCapture are not RAII: an op that throws while its ranks'
// streams are capturing leaves them capturing, and every later op enqueued on those streams is
// recorded into a graph nobody launches instead of running; its "time" is then the cost of
// recording it, floor-level latencies that --no-check would not question. Each stream whose
// capture began is noted with begun(); ended() once cudaStreamEndCapture returned for it
// (whatever it returned: an invalidated capture is ended too). The destructor ends, through
// `end_capture(i)` (which discards the partial graph), every capture still open.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace arbench {

template <class EndCapture>
class CaptureScope {
 public:
  explicit CaptureScope(EndCapture end_capture) : end_(std::move(end_capture)) {}
  ~CaptureScope() {
    for (std::size_t i : open_) {
      try {
        end_(i);
      } catch (...) {  // a destructor never throws; the error that unwound us is the one to report
      }
    }
  }
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;

  void begun(std::size_t stream) { open_.push_back(stream); }
  void ended(std::size_t stream) { open_.erase(std::remove(open_.begin(), open_.end(), stream), open_.end()); }
  bool open() const { return !open_.empty(); }

 private:
  EndCapture end_;
  std::vector<std::size_t> open_;
};

}  // namespace arbench
