// The registry's traffic check; see traffic_check.hpp.
#include "sol/traffic_check.hpp"

#include "islands/island_spec.hpp"
#include "sol/floor.hpp"

namespace arbench::sol {
namespace {

void check_one(const VariantEntry& e, const std::string& name, std::vector<std::string>& gaps) {
  if (e.traffic == nullptr) {
    gaps.push_back(name + ": no traffic pattern (VariantText::traffic / VariantEntry::traffic)");
    return;
  }
  const auto halves = islands::halves({2, 3, 4, 8});
  int declined = 0, cases = 0;
  for (int world : {2, 3, 4, 8})
    for (std::size_t bytes : {std::size_t{1} << 10, std::size_t{1} << 20, std::size_t{64} << 20}) {
      Case c;
      c.variant = name;
      c.family = e.family;
      c.world = world;
      c.bytes = bytes;
      if (e.family == Family::allreduce_rmsnorm) {  // a shape of the same bytes: tokens x hidden x 2
        c.hidden = 512;
        c.tokens = int(bytes / (2 * 512));
      }
      TrafficQuery q{c, variant_config(name), halves.at(world), {}, {}};
      const Traffic t = e.traffic(q);
      const std::string where = name + " at " + std::to_string(world) + " ranks, " + std::to_string(bytes) + " bytes";
      ++cases;
      if (t.schedules.empty() && t.declined) {  // a case the variant does not run (its Support says why)
        ++declined;
        continue;
      }
      if (t.schedules.empty()) {
        gaps.push_back(where + ": no schedule (" + t.why_none + ")");
        continue;
      }
      for (const auto& s : t.schedules)
        if (const std::string why = traffic_problem(s, query_of(t, q)); !why.empty()) gaps.push_back(where + ": " + why);
    }
  if (declined == cases) gaps.push_back(name + ": declines every case checked (Traffic::declined): no pattern at all");
}

}  // namespace

std::vector<std::string> traffic_gaps(const Registry& reg) {
  std::vector<std::string> gaps;
  for (const auto& e : reg.entries()) {
    check_one(e, e.name, gaps);
    for (const auto& cfg : e.configs) check_one(e, e.name + "[" + cfg + "]", gaps);
  }
  return gaps;
}

}  // namespace arbench::sol
