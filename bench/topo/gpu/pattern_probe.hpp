// The pattern probe: runs traffic patterns (topo/pattern.hpp) on the GPUs, every flow of a pattern
// at once behind one start gate, each flow an SM copy of 16-byte packs (push: stores into the
// peer; pull: loads from it), and gives each flow's GB/s; with options.copy_engine each flow again
// as a copy-engine copy (cudaMemcpyPeerAsync, a stream per flow, push issued on the source GPU,
// pull on the destination), and with options.latency_rounds the one-way flag latency of the
// pattern's latency pairs with nothing else running and while its copy-engine load runs. `arbench doctor`'s posted-write
// collapse probe runs its patterns on it (SM only); the speed-of-light floor's probe
// (bench/sol/probe_plan.hpp) runs every schedule's pattern on it. Bounded: the gate and each
// episode's finish wait at most opt.wait_timeout_s, and the patterns left once opt.budget_s is
// spent are skipped, saying so. CUDA-linked (bench/).
#pragma once

#include <vector>

#include "topo/gpu/cuda_gpus.hpp"
#include "topo/pattern.hpp"

namespace arbench::topo {

// One result per pattern, in order. Method per pattern and engine: one untimed episode of one
// repetition, then one of opt.repetitions; an SM flow's time runs from its blocks' first
// %globaltimer stamp to their last (fanout_copy_kernel), a copy-engine flow's from the GPU's start
// event after the gate to its stream's end event. A latency pair runs the flag ping-pong of
// `latency_us` (probe_device.cuh) on the GPUs' second streams once alone (idle_latency_us) and
// once during an episode of the copy-engine load (latency_us); a loaded ping-pong that outlasts
// the load is null, with a note. A flow whose GPUs lack P2P access
// (cudaDeviceCanAccessPeer), or past the 16 flows one GPU can drive, is null. Throws
// EnvironmentError when an episode does not finish within its bound (the GPUs' work cannot be
// stopped: the process must end; its resources are left to the driver).
std::vector<PatternResult> run_pattern_probe(const std::vector<CudaGpu>& gpus, const std::vector<Pattern>& patterns,
                                             const PatternProbeOptions& opt);

}  // namespace arbench::topo
