// Measured link matrices for `arbench topo` (and the short probe `arbench run` can start
// with): P2P bandwidth by copy engine and by SM stores (push) and loads (pull), one way and
// both ways at once, and one-way latency by an SM flag ping-pong; and the same links all loaded
// at once. CUDA-linked (bench/).
#pragma once

#include <cstddef>
#include <vector>

#include "topo/gpu/cuda_gpus.hpp"
#include "topo/links.hpp"
#include "topo/loaded.hpp"

namespace arbench::topo {

struct ProbeOptions {
  std::size_t bytes = std::size_t{64} << 20;  // per copy; rounded down to 16-byte packs
  int repetitions = 20;                       // timed copies per cell (after one warm-up)
  int latency_rounds = 2000;                  // ping-pong round trips per cell
  double wait_timeout_s = 1.0;                // bound on each spin wait: a lost peer is an error
  bool copy_engine = true;
  bool sm = true;
  bool latency = true;
};

// A short probe for the start of `arbench run` (efficiency denominator when no --links file
// is given): copy-engine bandwidth only, 16 MiB x 5 per direction, about 10 ms per pair.
inline ProbeOptions quick_probe_options() {
  ProbeOptions o;
  o.bytes = std::size_t{16} << 20;
  o.repetitions = 5;
  o.sm = false;
  o.latency = false;
  return o;
}

// All matrices over `gpus` (index = position in gpus, normally the CUDA ordinal). The diagonal
// holds copies within one GPU (a reference, never used as a link). With fewer than 2 GPUs
// every matrix says the pairwise part was skipped, and why; pairs without P2P access get a
// null cell and a note for the SM matrices and latency.
Links run_link_probes(const std::vector<CudaGpu>& gpus, const ProbeOptions& opt);

// Loaded links (`arbench topo --loaded`, probe_loaded.cu): every GPU moves opt.bytes x
// opt.repetitions over each of its links at once, in four patterns (copy engines and SM kernels,
// push and pull), behind a start gate so all GPUs begin together; then, per ordered pair, the
// one-way ping-pong latency while the copy-engine push load runs. Needs n x opt.bytes of device
// memory per GPU. Skipped, with the reason, below 2 GPUs.
LoadedLinks run_loaded_probes(const std::vector<CudaGpu>& gpus, const ProbeOptions& opt);

}  // namespace arbench::topo
