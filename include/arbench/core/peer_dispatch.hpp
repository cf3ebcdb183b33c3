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

}  // namespace arbench
