// What one world size's measurements say about the choices engines expose, beyond NCCL's own
// configuration (nccl_plan.hpp). Each is "the best of group A against the best of group B" at
// every size measured for both, weighed with evidence.hpp's rule:
//
//   custom      arbench's one-shot / two-shot kernels   vs `nccl`          (custom all-reduce on/off)
//   shots       one-shot (pull or push)                 vs `twoshot`       (the one-shot/two-shot crossover)
//   nccl_symm   `nccl-symm`                             vs `nccl`          (NCCL symmetric memory on/off)
//   fusion      fused all-reduce + RMSNorm              vs the best unfused pair, in tokens at the result's hidden size
//   fused_shots `fused-oneshot`                         vs `fused-twoshot` (FlashInfer's use_oneshot)
//
// and the same comparisons on the peers' own kernels where the results have them (docs/variants.md,
// "Peers"), which a line whose knob turns that kernel on or off cites instead of arbench's nearest
// variant:
//   peer_pcie_ipc      `flashinfer-pcie-ipc`        vs `nccl`   (VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC, SGLang's)
//   peer_vllm_custom   `vllm-custom`                vs `nccl`   (vLLM's custom all-reduce on/off)
//   peer_fusion        `flashinfer-fused`           vs the best unfused pair (vLLM's and SGLang's fusion)
//   peer_fused_shots   `flashinfer-fused[oneshot]`  vs `flashinfer-fused[twoshot]` (FlashInfer's use_oneshot)
//
// `lead` is where A holds from the smallest measured size upward: for a "beats" comparison
// (custom, nccl_symm, fusion) the largest size up to which A beats B at every measured size (0:
// not even at the smallest); for a crossover (shots, fused_shots) the largest size up to which A
// is never beaten by B.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "settings/evidence.hpp"
#include "settings/measured.hpp"

namespace arbench {

struct Advantage {
  std::string a, b;     // what the groups are, for people
  std::string axis;     // "bytes" | "tokens"
  bool measured = false;
  std::uint64_t lead = 0;
  bool everywhere = false;  // A holds at every measured size
  int wins = 0, losses = 0;
  std::vector<Evidence> evidence;  // every size measured for both groups, ascending
  std::string missing, run_line;   // when !measured

  std::uint64_t first_size() const { return evidence.empty() ? 0 : evidence.front().size; }
  std::uint64_t last_size() const { return evidence.empty() ? 0 : evidence.back().size; }
  // The evidence at the largest size of the lead and at the first size past it (when any).
  std::vector<Evidence> boundary() const;
};

// How far NCCL's best is from the speed-of-light floor (bench/sol/, docs/method.md "The floor of
// a case") at each all-reduce size both were recorded: NCCL's best is its fastest variant there
// (`nccl`, its configurations, `nccl-symm`, builds side by side), the floor the lowest any variant
// measured at that size recorded (the fastest schedule this box allows among those run). Within
// kNothingToWin of the floor (median <= 1.1 x floor): nothing to win here, whatever replaces NCCL.
inline constexpr double kNothingToWin = 0.10;

struct SolHeadroom {
  std::uint64_t size = 0;
  std::string nccl_variant;  // NCCL's fastest there
  double nccl_us = 0;
  std::string floor_variant;  // whose floor is the lowest there
  double floor_us = 0;
  bool nothing_to_win() const { return nccl_us <= (1 + kNothingToWin) * floor_us; }
};

struct Findings {
  int world = 0;
  Advantage custom, shots, nccl_symm, fusion, fused_shots;
  Advantage peer_pcie_ipc, peer_vllm_custom, peer_fusion, peer_fused_shots;  // measured only with the peers
  std::vector<SolHeadroom> headroom;  // NCCL's best against the floor, where both were recorded
};

Findings find_advantages(const Measured& m, int world, const VerdictOptions& opt);

// Ascending by size; empty when the results recorded no floor (older results, `run --no-sol`).
std::vector<SolHeadroom> find_headroom(const Measured& m, int world);

// The names of arbench's custom all-reduce kernels (the engines' custom all-reduce stand-ins).
inline const char* const kCustomVariants[] = {"oneshot-pull", "oneshot-push", "twoshot"};

// What NCCL builds measured side by side say (`arbench run --nccl-lib`, docs/engine-settings.md
// "Another NCCL, measured beside yours"): per world size and per library measured beside the
// run's default one, that library's own choice (`nccl@<label>`) against the default's (`nccl`) at
// every size both measured, and `nccl-symm@<label>` against `nccl-symm` where both ran, weighed
// with evidence.hpp's rule (significant and beyond the margin). The verdict on switching the
// engine's NCCL to that build:
//   switch   faster at some size, slower at none (NCCL's own choice)
//   keep     faster at no size
//   mixed    faster at some sizes, slower at others: where it wins says which matters to you
//   missing  the results hold no case of both at this world size (`verify` is the run line)
struct NcclBuildFinding {
  std::string label, variant;       // "2.29.2", "nccl@2.29.2"
  std::string version, path;        // of that library ("" when the results do not record them)
  std::string default_version;      // the run's default library (`nccl`)
  Advantage plain;                  // nccl@<label> vs nccl
  Advantage symm;                   // nccl-symm@<label> vs nccl-symm (measured = false when not both)
  std::string verdict;              // switch | keep | mixed | missing
  std::string summary;              // one sentence: what switching does here
  std::string verify;               // `arbench compare RESULT --between nccl,nccl@<label>`, or the run line
};

// One finding per library measured beside the default (provenance.nccl_libraries, and any
// `nccl@<label>` case the results hold), in label order; empty when there is none.
std::vector<NcclBuildFinding> find_nccl_builds(const Measured& m, int world, const VerdictOptions& opt);

}  // namespace arbench
