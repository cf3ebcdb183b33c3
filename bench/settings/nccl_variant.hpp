// What an NCCL variant name says: `nccl` (NCCL's own choice), `nccl[<algo>/<proto>]` (forced
// algorithm and protocol), `nccl[<algo>/<proto>/ch:<N>]` (and exactly N channels: the channel
// sweep, `arbench run --nccl-channels`), `nccl[tuned]` (NCCL with arbench's tuner plugin: the
// verification), `nccl-symm` (NCCL on symmetric windows). Names as kernels/nccl/nccl_allreduce.cu
// runs them; tests/host/settings/ checks both agree.
#pragma once

#include <optional>
#include <string>

namespace arbench {

struct NcclVariant {
  enum Kind { plain, forced, tuned, symm } kind = plain;
  int algo = -1, proto = -1;  // NCCL indices (arbench/tuner/tuner_table.hpp), forced only
  int channels = 0;           // forced with /ch:N; 0: NCCL's channel count
};

// nullopt for anything that is not one of the names above.
std::optional<NcclVariant> parse_nccl_variant(const std::string& variant);

// "nccl[ring/ll/ch:4]" from its parts (channels 0: no /ch).
std::string nccl_forced_name(int algo, int proto, int channels);

}  // namespace arbench
