// The pattern probe: runs traffic patterns (topo/pattern.hpp) on the GPUs, every flow of a pattern
// at once behind one start gate, each flow an SM copy of 16-byte packs (push: stores into the
// peer; pull: loads from it), and gives each flow's GB/s. `arbench doctor`'s posted-write collapse
// probe runs its patterns on it; a schedule's own pattern runs the same way. Bounded: the gate and
// each episode's finish wait at most opt.wait_timeout_s, and the patterns left once opt.budget_s
// is spent are skipped, saying so. CUDA-linked (bench/).
#pragma once

#include <vector>

#include "topo/gpu/cuda_gpus.hpp"
#include "topo/pattern.hpp"

namespace arbench::topo {

// One result per pattern, in order. Method per pattern: one untimed episode of one repetition,
// then one of opt.repetitions; a flow's time runs from its blocks' first %globaltimer stamp to
// their last (fanout_copy_kernel). A flow whose GPUs lack P2P access (cudaDeviceCanAccessPeer),
// or past the 16 flows one GPU's kernel can drive, is null. Throws EnvironmentError when an
// episode does not finish within its bound (the GPUs' work cannot be stopped: the process must
// end; its resources are left to the driver).
std::vector<PatternResult> run_pattern_probe(const std::vector<CudaGpu>& gpus, const std::vector<Pattern>& patterns,
                                             const PatternProbeOptions& opt);

}  // namespace arbench::topo
