#include "tests/mutation/mutant_table.hpp"

namespace arbench::testing {

using algo::Fault;
using K = TwinKernel;

// oneshot-fp8 and twoshot-fp8 run the oneshot-pull and twoshot protocols with the FP8 payload:
// every mutant that targets one of those targets its FP8 form too, with the same expectation
// (the driver fails a mutant that forgets one: fp8_targets_missing).
const std::vector<Mutant>& mutants() {
  static const std::vector<Mutant> all = {
      {"store_release relaxed", Fault::store_relaxed,
       "a flag published with a plain/relaxed store: the data written before it is not ordered before it",
       Scenario::ops,
       {{K::oneshot_pull, Kill::tsan}, {K::twoshot, Kill::tsan}, {K::ring, Kill::tsan},
        {K::fused_oneshot, Kill::tsan}, {K::fused_twoshot, Kill::tsan}, {K::island_twoshot, Kill::tsan},
        {K::fused_island_twoshot, Kill::tsan}, {K::oneshot_fp8, Kill::tsan}, {K::twoshot_fp8, Kill::tsan}}},
      {"load_acquire relaxed", Fault::load_relaxed,
       "a flag polled with a relaxed load: the peer's data read after it may be stale",
       Scenario::ops,
       {{K::oneshot_pull, Kill::tsan}, {K::twoshot, Kill::tsan}, {K::ring, Kill::tsan},
        {K::fused_oneshot, Kill::tsan}, {K::fused_twoshot, Kill::tsan}, {K::island_twoshot, Kill::tsan},
        {K::fused_island_twoshot, Kill::tsan}, {K::oneshot_fp8, Kill::tsan}, {K::twoshot_fp8, Kill::tsan}}},
      // fused-island-oneshot: since its earlier ops run on negated x, the wrong sums a missing
      // barrier leaves were seen before TSan reported the race in 1 of 3 full runs here.
      {"block_sync skipped", Fault::block_sync_skipped,
       "a missing __syncthreads: one thread publishes (or reuses) what other threads of its block still write",
       Scenario::ops,
       {{K::oneshot_pull, Kill::tsan}, {K::oneshot_push, Kill::tsan}, {K::twoshot, Kill::tsan},
        {K::ring, Kill::tsan}, {K::add_rmsnorm, Kill::tsan}, {K::fused_oneshot, Kill::tsan},
        {K::fused_twoshot, Kill::tsan}, {K::island_oneshot, Kill::tsan}, {K::island_twoshot, Kill::tsan},
        {K::fused_island, Kill::tsan, Kill::wrong}, {K::fused_island_twoshot, Kill::tsan},
        {K::oneshot_fp8, Kill::tsan}, {K::twoshot_fp8, Kill::tsan}}},
      // The threads that go on past the expired wait write output the correct protocol leaves
      // untouched (wrong result); on the two-shot kernels they also touch the reduce slots a peer
      // still writes, and which the checker meets first depends on timing (TSan or wrong).
      {"block_all own flag", Fault::block_all_own,
       "__syncthreads_and replaced by __syncthreads: threads whose own wait succeeded go on after a peer's expired",
       Scenario::missing_rank,
       {{K::oneshot_pull, Kill::wrong},
        {K::twoshot, Kill::wrong, Kill::tsan},
        {K::ring, Kill::tsan},
        {K::fused_oneshot, Kill::wrong},
        {K::fused_twoshot, Kill::wrong, Kill::tsan},
        {K::island_twoshot, Kill::wrong, Kill::tsan},
        {K::fused_island_twoshot, Kill::wrong, Kill::tsan},
        {K::oneshot_fp8, Kill::wrong},
        {K::twoshot_fp8, Kill::wrong, Kill::tsan}}},
      // Not fused-island-oneshot: its twin run checks only the last op, and a reader falls into
      // the torn window of that one op in only some runs (3 of 4 alone); its LL stores are
      // island-oneshot's (push_to_island, push_across), which this mutant kills every run.
      {"LL line torn", Fault::ll_torn,
       "an LL line written as four 4-byte stores: a reader sees a half's flag before its data",
       Scenario::ops,
       {{K::oneshot_push, Kill::wrong}, {K::island_oneshot, Kill::wrong}}},
      // The stalled block's next op reuses the epoch and its slot, racing with its peers' reads
      // of the op before (TSan, first in most runs); then its peers wait for an epoch it never
      // publishes (timeout), or, on the ring, see a slot overwritten (the overwrite check).
      // oneshot-push's LL lines are atomics: no race, only the wait.
      {"epoch not advanced", Fault::epoch_stall,
       "one block of one rank forgets to record an op's epoch (or ring transfer count)",
       Scenario::ops,
       {{K::oneshot_pull, Kill::tsan, Kill::timeout},
        {K::oneshot_push, Kill::timeout},
        {K::twoshot, Kill::tsan, Kill::timeout},
        {K::ring, Kill::tsan, Kill::protocol_error},
        {K::fused_oneshot, Kill::tsan, Kill::timeout},
        {K::fused_twoshot, Kill::tsan, Kill::timeout},
        {K::island_oneshot, Kill::timeout},
        {K::island_twoshot, Kill::tsan, Kill::timeout},
        {K::fused_island, Kill::timeout},
        {K::fused_island_twoshot, Kill::tsan, Kill::timeout},
        {K::oneshot_fp8, Kill::tsan, Kill::timeout},
        {K::twoshot_fp8, Kill::tsan, Kill::timeout}}},
      // Not fused-twoshot: its second barrier already orders every peer's reads of a slot before
      // the slot's next write (staging is read before the phase-1 barrier, the gather region is
      // written after the next op's phase-0 barrier), so single-buffering it is harmless there:
      // an equivalent mutant, which no test can kill.
      {"staging slot reused early", Fault::slot_early,
       "single-buffered staging: op e+1 overwrites a slot peers may still read for op e",
       Scenario::ops,
       {{K::oneshot_pull, Kill::tsan}, {K::twoshot, Kill::tsan}, {K::fused_oneshot, Kill::tsan},
        {K::island_twoshot, Kill::tsan}, {K::fused_island_twoshot, Kill::tsan}, {K::oneshot_fp8, Kill::tsan},
        {K::twoshot_fp8, Kill::tsan}}},
      {"partition off by one", Fault::partition_edge,
       "a block range one pack (fused: one row) too long at a block boundary: two blocks write it",
       Scenario::ops,
       {{K::oneshot_pull, Kill::tsan}, {K::oneshot_push, Kill::tsan}, {K::twoshot, Kill::tsan},
        {K::add_rmsnorm, Kill::tsan}, {K::fused_oneshot, Kill::tsan}, {K::fused_twoshot, Kill::tsan},
        {K::island_oneshot, Kill::tsan}, {K::island_twoshot, Kill::tsan}, {K::fused_island, Kill::tsan},
        {K::fused_island_twoshot, Kill::tsan}, {K::oneshot_fp8, Kill::tsan}, {K::twoshot_fp8, Kill::tsan}}},
      // The norm kernels normalise one or two rows per block here, and TSan flags their lanes
      // race in most runs but not all (fused-twoshot: 7 of 8; fused-oneshot: 2 of 3; add_rmsnorm
      // missed once in ~10 full runs on a loaded 2-core machine); when it does not, the wrong sum
      // is caught.
      {"norm tree unsynced", Fault::norm_tree_unsynced,
       "the RMSNorm lane tree without its __syncthreads between strides",
       Scenario::ops,
       {{K::add_rmsnorm, Kill::tsan, Kill::wrong},
        {K::fused_oneshot, Kill::tsan, Kill::wrong},
        {K::fused_twoshot, Kill::tsan, Kill::wrong},
        {K::fused_island, Kill::tsan, Kill::wrong},
        {K::fused_island_twoshot, Kill::tsan, Kill::wrong}}},
      // The island protocols' own steps. Their points cut 4 ranks into islands of 1 and 3 (the
      // lone rank serves all three of the other island) and cross through host memory.
      // island-twoshot's cross data are plain stores: reading them unwaited is a race (TSan),
      // or, where the race goes unseen, a stale value; the LL forms read stale lines (wrong).
      {"cross-island wait skipped", Fault::cross_wait_skipped,
       "the other islands' partials read without waiting for their epoch (as if the island step had ordered them)",
       Scenario::ops,
       {{K::island_oneshot, Kill::wrong},
        {K::island_twoshot, Kill::tsan, Kill::wrong},
        {K::fused_island, Kill::wrong},
        {K::fused_island_twoshot, Kill::tsan, Kill::wrong}}},
      {"cross partner at own position only", Fault::cross_dest_dropped,
       "equal islands assumed (rank i <-> rank i): with 1 + 3 ranks, two ranks of the larger island never get a partial",
       Scenario::ops,
       {{K::island_oneshot, Kill::timeout},
        {K::island_twoshot, Kill::timeout},
        {K::fused_island, Kill::timeout},
        {K::fused_island_twoshot, Kill::timeout}}},
  };
  return all;
}

std::vector<std::string> fp8_targets_missing() {
  std::vector<std::string> missing;
  for (const Mutant& m : mutants())
    for (TwinKernel fp8 : {K::oneshot_fp8, K::twoshot_fp8}) {
      bool exact = false, wire = false;
      for (const Target& t : m.targets) {
        exact = exact || t.kernel == protocol_kernel(fp8);
        wire = wire || t.kernel == fp8;
      }
      if (exact && !wire) missing.push_back(std::string(m.name) + ": " + twin_kernel_name(fp8));
    }
  return missing;
}

}  // namespace arbench::testing
