// The peers' registry entries (kernels/register_cuda.cu: one line per peer).
#pragma once

#include "arbench/variant.hpp"
#include "kernels/peers/peer_text.hpp"

namespace arbench {

VariantEntry peer_entry(PeerKind k);

}  // namespace arbench
