// A background load beside a case (run --beside; docs/method.md, "Beside a model kernel"): on
// each GPU a stream of short kernels at CUDA's lowest stream priority (beside_gpu/), or on the
// host backend a CPU thread per rank at the lowest scheduling priority (host_load.cpp), each
// running work items of tens of microseconds one after another: FMA-bound, memory-bound, or the
// two in turn (a decode step's GEMM and its memory-bound ops). It counts the items it finished, so
// the harness can compare its work per second alone and while the case runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "arbench/fabric.hpp"

namespace arbench {

enum class BesideKind : std::uint8_t { compute, fma, memory };

// "compute" (FMA- and memory-bound items in turn), "fma", "memory"; nullopt for anything else.
std::optional<BesideKind> parse_beside_kind(const std::string& s);
const char* beside_kind_name(BesideKind k);

// One background item's target length: tens of microseconds, like one kernel of a decode step.
inline constexpr double kBesideItemTargetUs = 25.0;

class BesideLoad {
 public:
  virtual ~BesideLoad() = default;
  // Starts issuing items; returns once the load runs. Call once.
  virtual void start() = 0;
  // Items finished so far, every GPU (thread) together.
  virtual std::uint64_t done() const = 0;
  // Stops issuing and waits for the items in flight (bounded: they are tens of microseconds each;
  // a load whose items do not finish within its bound throws EnvironmentError). Idempotent.
  virtual void stop() = 0;
  // "gpu" or "cpu": whose clocks the load's items ran on.
  virtual std::string timing() const = 0;
  // One item's time with nothing else running (calibrated when the load was made), microseconds.
  virtual double item_us() const = 0;
};

// Makes the load for a fabric's ranks (the run command's wiring: host threads or GPU streams).
using BesideLoadFactory = std::function<std::unique_ptr<BesideLoad>(Fabric& f, BesideKind kind)>;

// The host backend's load: a thread per rank of `f` at the lowest scheduling priority (nice 19).
std::unique_ptr<BesideLoad> make_host_beside_load(const Fabric& f, BesideKind kind);

}  // namespace arbench
