// Whether an engine runs a peer (docs/variants.md, "Peers") at a world size: the one dispatch rule
// `arbench tune` (which leaves a peer out of a dispatch table where no engine would run it) and
// `arbench settings` (which gates the engine switch that turns it on) share. Host code; knows the
// peers by their names only, so that the settings and analysis libraries, which link no kernels,
// ask it too (kernels/core/peer_dispatch.cpp says which engine code each refusal was read in).
#pragma once

#include <string>

namespace arbench {

// Where a peer would be dispatched: the world size, and whether every GPU pair of it is
// NVLink-connected (a result's provenance.nvlink_all_pairs; false on the PCIe boxes arbench targets).
struct DispatchPlace {
  int world = 0;
  bool all_nvlink = false;
};

// Why no engine runs `variant` (a peer's name, its configuration in brackets: `vllm-custom`,
// `flashinfer-pcie-ipc[staged]`) at `at`; "" where an engine does, and for every name that is no
// peer. The text completes "no engine selects it: ...".
std::string peer_not_dispatchable(const std::string& variant, DispatchPlace at);

// Which engine runs `variant` so, for the labels of `arbench tune`: "as vLLM runs it (...)",
// "FlashInfer's own rule (...)", "... forced: no engine runs it"; "" for every name that is no peer.
std::string peer_engine_label(const std::string& variant);

// The peer whose engine may run `variant` at `at` as that engine runs it ("flashinfer-pcie-ipc",
// "flashinfer-fused", "vllm-custom"), "" where no engine runs this configuration so. A peer's engine
// choice at a size is the fastest of its cases so marked: vLLM runs FlashInfer's PCIe-IPC tuner,
// which picks among the forced schedules, so they count; the fusion as vLLM runs it (the plain name,
// `[vllm]`), not FlashInfer's own rule or a forced kernel; vLLM's custom all-reduce where it is
// dispatched, never a forced stage. `arbench tune` holds arbench's best against each.
std::string peer_as_engine_runs_it(const std::string& variant, DispatchPlace at);

}  // namespace arbench
