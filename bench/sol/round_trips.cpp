// The kernels' round trips per op; see round_trips.hpp.
#include "sol/round_trips.hpp"

#include "arbench/core/round_trips.hpp"

namespace arbench::sol {

std::optional<RoundTrips> kernel_round_trips(const std::string& variant, int world, DType dtype, int arch) {
  // The variant's own name (a configuration's brackets off), named exactly in an entry's list:
  // a pattern such as "unfused-*" names a second kernel beside the all-reduce (the norm), never
  // the all-reduce itself.
  const std::string name = variant.substr(0, variant.find('['));
  for (const KernelRoundTrips& k : kKernelRoundTrips)
    if (holds(k, dtype_name(dtype), arch) && listed_in(k.variants, name)) {
      // A copy-engine variant's streams wait too (cuStreamWaitValue32): those waits count alike.
      const int streams = stream_round_trips(name, world);
      return RoundTrips{double(one_unit_round_trips(k, world) + streams),
                        "round-trip table: " + std::string(k.kernel) + ", sm_" + std::to_string(arch) + ", " +
                            std::string(dtype_name(dtype)) + " (every thread one unit of work)" +
                            (streams > 0 ? " + " + std::to_string(streams) + " stream waits" : "")};
    }
  return std::nullopt;  // no count of the kernel's code: the floor takes its schedule's count, and says so
}

}  // namespace arbench::sol
