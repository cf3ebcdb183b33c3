// What NCCL moves between ranks, as its algorithm and protocol say (arbench/traffic.hpp). Facts
// read in NVIDIA/nccl v2.28.9-1:
// - On PCIe, NCCL's P2P transport writes into the receiver (src/graph/paths.cc: P2P read only
//   between two sm_80 GPUs over NVLink): the ring and the tree push.
// - The tree within one node is a chain of its GPUs (src/graph/connect.cc: tree.up = intra[i-1],
//   tree.down[0] = intra[i+1]): reduce up the chain, broadcast down, pipelined.
// - Protocols on the wire (src/include/device.h): LL lines hold 4 data bytes per 8 (ratio 2), LL128
//   15 data words of 16 (16/15), Simple the data alone.
// - The symmetric kernels of an all-reduce off NVLink (src/sym_kernels.cc): AllReduce_AGxLL_R (every
//   rank's message to every peer as LL lines, each rank reduces: a one-shot push) and
//   AllReduce_RSxLD_AGxST (a reduce-scatter by loads, an all-gather by stores); NCCL picks by its
//   model per size.
// Where the algorithm or protocol is NCCL's choice, every candidate is a schedule and the floor is
// the lowest. NVLS and CollNet need NVLink SHARP or a network: none on one PCIe node. The ring and
// the chain follow the case's ring order (the PCIe tree's on the cuda backend), which NCCL's own
// search also follows on a PCIe tree.
#include <algorithm>
#include <cctype>

#include "arbench/traffic_schedules.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"

namespace arbench {
namespace {

struct Proto {
  const char* name;
  double ratio;
};
constexpr Proto kProtos[] = {{"simple", 1.0}, {"ll", 2.0}, {"ll128", 16.0 / 15.0}};
constexpr const char* kAlgos[] = {"ring", "tree"};

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// The names of `all` a value of NCCL_ALGO / NCCL_PROTO allows ("Ring", "ring,tree", "^tree"); all of
// them when it names none (NCCL's choice, or only algorithms this box has not).
std::vector<std::string> allowed(const std::string* value, const std::vector<std::string>& all) {
  if (value == nullptr || value->empty() || value->front() == '(') return all;
  std::string v = lower(*value);
  const bool exclude = !v.empty() && v.front() == '^';
  if (exclude) v.erase(0, 1);
  std::vector<std::string> named;
  for (std::size_t at = 0; at <= v.size();) {
    const std::size_t comma = std::min(v.find(',', at), v.size());
    named.push_back(v.substr(at, comma - at));
    at = comma + 1;
  }
  std::vector<std::string> out;
  for (const auto& a : all)
    if ((std::find(named.begin(), named.end(), a) != named.end()) != exclude) out.push_back(a);
  return out.empty() ? all : out;
}

TrafficSchedule schedule_of(const std::string& algo, const Proto& p, const TrafficQuery& q) {
  const int n = q.c.world;
  const std::vector<int> order = ring_or_identity(q.ring_order, n);
  const double m = double(q.c.bytes) * p.ratio;
  const std::string proto = std::string(" (") + p.name + ")";
  if (algo == "ring") return ring_schedule("NCCL ring" + proto, order, m / n, 2 * (n - 1), p.ratio);
  return chain_schedule("NCCL tree: a chain within the node" + proto, order, m, 2 * (n - 1), p.ratio);
}

}  // namespace

Traffic nccl_traffic(const TrafficQuery& q) {
  Traffic t;
  if (one_rank(q, &t)) return t;
  std::vector<std::string> algos(std::begin(kAlgos), std::end(kAlgos)), protos;
  for (const auto& p : kProtos) protos.push_back(p.name);
  const std::string* algo = q.setting("NCCL_ALGO");
  const std::string* proto = q.setting("NCCL_PROTO");
  std::string forced_algo, forced_proto;
  if (!q.config.empty() && q.config != "tuned") {  // "ring/ll", "ring/ll/ch:4"
    const auto slash = q.config.find('/');
    forced_algo = q.config.substr(0, slash);
    const std::string rest = slash == std::string::npos ? "" : q.config.substr(slash + 1);
    forced_proto = rest.substr(0, rest.find('/'));
    algo = &forced_algo;
    proto = &forced_proto;
  }
  for (const auto& a : allowed(algo, algos))
    for (const auto& pn : allowed(proto, protos))
      for (const auto& p : kProtos)
        if (pn == p.name) t.schedules.push_back(schedule_of(a, p, q));
  return t;
}

Traffic nccl_symm_traffic(const TrafficQuery& q) {
  const std::string* symm = q.setting("nccl_symm_kernels");
  if (symm != nullptr && symm->rfind("off", 0) == 0) return nccl_traffic(q);
  Traffic t;
  if (one_rank(q, &t)) return t;
  const int n = q.c.world;
  const double m = double(q.c.bytes);
  t.schedules.push_back(oneshot_schedule("NCCL symmetric AllReduce_AGxLL_R (one-shot push, LL)", TrafficDirection::push,
                                         n, 2 * m, 1, 2));
  // Loads after a barrier (2 waits), stores then a barrier before the next op may write (2).
  t.schedules.push_back(twoshot_schedule("NCCL symmetric AllReduce_RSxLD_AGxST (reduce-scatter loads, all-gather stores)",
                                         {TrafficDirection::pull, TrafficDirection::push, 2, 2}, n, m / n, m / n, 1));
  return t;
}

}  // namespace arbench
