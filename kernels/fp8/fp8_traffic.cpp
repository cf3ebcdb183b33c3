// What oneshot-fp8 and twoshot-fp8 move between ranks (arbench/traffic.hpp): oneshot-pull's and
// twoshot's schedules with the FP8 slot on the wire instead of the message: its codes and scales,
// algo::fp8_slot_packs(elements) 16-byte packs (include/arbench/algo/fp8/fp8_payload.hpp).
#include "arbench/traffic_schedules.hpp"
#include "kernels/fp8/fp8_variant.hpp"

namespace arbench {
namespace {

// Wire bytes of a message of q's case, and their ratio to its bytes.
double wire_bytes(const TrafficQuery& q) { return double(algo::fp8_slot_packs(q.c.elements()) * sizeof(algo::Pack)); }

}  // namespace

Traffic oneshot_fp8_traffic(const TrafficQuery& q) {
  const double w = wire_bytes(q);
  return one_schedule(q, [&] {
    return oneshot_schedule("one-shot pull, FP8 on the wire", TrafficDirection::pull, q.c.world, w, 2,
                            w / double(q.c.bytes));
  });
}

Traffic twoshot_fp8_traffic(const TrafficQuery& q) {
  const double w = wire_bytes(q), shard = w / q.c.world;
  return one_schedule(q, [&] {
    return twoshot_schedule("two-shot, FP8 on the wire (quantized for each half)", {}, q.c.world, shard, shard,
                            w / double(q.c.bytes));
  });
}

}  // namespace arbench
