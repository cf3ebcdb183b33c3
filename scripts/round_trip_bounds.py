"""How many PCIe waits each protocol kernel may have, and why (scripts/round_trips.py checks them).

Per kernel source (kernels/*/NAME.cu): the variants it runs; `op`, the most flag waits (and data
waits) outside its loops of work, one per flag round trip the protocol itself needs; `per`, for
each kind of work loop (the `round-trips: per <what>` marker on its `for` line), the most waits
one iteration may have (flag and data together); and the reason. docs/round-trips.md explains
them. A kernel whose counts exceed its bound, or that has a work loop of a kind its bound does not
name, fails the check.
"""

ONE_SHOT = ("one-shot: one flag wait (the barrier: every peer has staged), then one wave per unit: "
            "every rank's data for the unit loaded back to back, used once all are in flight")
TWO_SHOT = ("two-shot: one flag wait per phase (reduce-scatter, all-gather), and one wave per unit in "
            "each phase: every rank's data of the unit (scatter) or the owner's (gather)")
FUSED = " The norm adds no PCIe wait: per row, only its units (and a block-local sum)."

BOUNDS = {
    "oneshot_pull": {"variants": ("oneshot-pull", "unfused-oneshot"), "op": (1, 0), "per": {"per unit": 1},
                     "why": ONE_SHOT},
    "oneshot_fp8": {"variants": ("oneshot-fp8",), "op": (1, 0), "per": {"per unit": 1},
                    "why": ONE_SHOT + "; codes and scales of all ranks in the same wave"},
    "fused_oneshot": {"variants": ("fused-oneshot",), "op": (1, 0), "per": {"per row": 0, "per unit": 1},
                      "why": ONE_SHOT + "." + FUSED},
    "oneshot_push": {"variants": ("oneshot-push",), "op": (0, 0), "per": {"per unit": 1},
                     "why": "one-shot push: no barrier; per unit one wait for every peer's LL lines of the unit "
                            "(flag and data arrive together), polled in one pass"},
    "twoshot": {"variants": ("twoshot",), "op": (2, 0), "per": {"per unit": 1, "per peer": 0}, "why": TWO_SHOT},
    "twoshot_fp8": {"variants": ("twoshot-fp8",), "op": (2, 0), "per": {"per unit": 1, "per peer": 0},
                    "why": TWO_SHOT + "; codes and scales of all ranks in the same wave"},
    "fused_twoshot": {"variants": ("fused-twoshot",), "op": (2, 0), "per": {"per row": 0, "per unit": 1, "per peer": 0},
                      "why": TWO_SHOT + "; a gathered unit is a pack of r and of y, loaded together." + FUSED},
    "ring": {"variants": ("ring",), "op": (0, 0), "per": {"per step": 1, "per round": 1},
             "why": "ring: one flag wait per step (the previous rank's transfer; the credit for the slot, released "
                    "steps earlier, is polled in the same wave), and one per round for the drain (the last "
                    "transfer's flag); slots are in the receiver's memory, so no remote load at all"},
    "island_oneshot": {"variants": ("island-oneshot",), "op": (0, 0), "per": {"per unit": 1},
                       "why": "island one-shot: per unit, one wait in each of its two unit loops: the island "
                              "peers' LL lines (first loop), the other islands' partials (second loop)"},
    "fused_island": {"variants": ("fused-island-oneshot",), "op": (0, 0), "per": {"per row": 0, "per unit": 1},
                     "why": "island one-shot (fused): as island-oneshot, per unit of each loop one wait." + FUSED},
    "island_twoshot": {"variants": ("island-twoshot",), "op": (3, 0), "per": {"per unit": 1},
                       "why": "island two-shot: three flag waits (the island barrier, the cross-island flags, "
                              "the second island barrier) and one wave per unit in each of its unit loops "
                              "(the island's shard, the islands' partials, the island all-gather)"},
    "fused_island_twoshot": {"variants": ("fused-island-twoshot",), "op": (3, 0), "per": {"per row": 0, "per unit": 1},
                             "why": "island two-shot (fused): as island-twoshot." + FUSED},
    "add_rmsnorm": {"variants": ("unfused-*",), "op": (0, 0), "per": {"per unit": 0, "per row": 0},
                    "why": "the norm kernel alone reads no peer memory"},
    "ce_reduce": {"variants": ("ce-twoshot", "ce-ring", "ce-island"), "op": (0, 0), "per": {},
                  "why": "the copy-engine variants' reduce reads only its own rank's memory (copy engines brought "
                         "the operands): no PCIe wait in its code; their waits are stream waits (STREAM_WAITS)"},
}

# The copy-engine variants wait with their streams, not in a kernel: a cuStreamWaitValue32 on a flag
# that a peer's stream writes is a PCIe round trip like a polled flag, and counts as one. Per op of
# their programs (include/arbench/algo/ce/) with one chunk per segment: per `op`, or per ring `step`
# (2(N-1) of them). tests/host/algo/test_ce_programs.cpp counts them in the programs themselves.
STREAM_WAITS = {
    "ce-twoshot": {"per": "op", "waits": 2,
                   "why": "the gather's data flags (every peer's chunk in staging), then the scatter's (every "
                          "owner's reduced chunk in the output); the credits come back meanwhile"},
    "ce-ring": {"per": "step", "waits": 1,
                "why": "one per step: the previous rank's copy (reduce-scatter into staging, all-gather into the "
                       "output)"},
    "ce-island": {"per": "op", "waits": 3,
                  "why": "one per phase: the island peers' copies (inside), the partners' partials (across), the "
                         "owners' final segments (inside again)"},
}
