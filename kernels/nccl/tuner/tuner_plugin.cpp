// libarbench-nccl-tuner.so: an NCCL tuner plugin (ABI v6 and v5: nccl_tuner_v6.hpp,
// nccl_tuner_v5.hpp) that applies the all-reduce table `arbench settings` writes
// (arbench/tuner/tuner_table.hpp).
//
// Contract, because NCCL loads this into programs arbench knows nothing of (vLLM, SGLang, ...):
//  - it changes an all-reduce's choice only where the table has a rule for that communicator's
//    (nRanks, nNodes) and the size: the rule's cell of the cost table is set to 0 (NCCL picks the
//    cheapest) and, for channels > 0, *nChannels to the rule's count. Everything else (other
//    collectives, sizes, world sizes, a cell NCCL marked ignored) is left byte for byte as it was;
//    NCCL's tuning constants are never touched;
//  - a table that is malformed, from another machine or from another NCCL major is refused as a
//    whole (logged at WARN with the reason) and the plugin changes nothing; one from another NCCL
//    minor is applied with one WARN line saying so (check_nccl_version); a cost table of another
//    shape than NCCL's 7 algorithms x 3 protocols is never written (one WARN per communicator);
//  - one INFO line per communicator says that it loaded, through which interface, and which
//    table it applies (or why none);
//  - it always returns success (an error from init fails the communicator, one from getCollInfo
//    the collective: NCCL 2.28.9 enqueue.cc / init.cc), and no exception leaves it;
//  - it logs through NCCL's logger: see NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING.
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "arbench/tuner/tuner_table_text.hpp"
#include "kernels/nccl/tuner/machine_probe.hpp"
#include "kernels/nccl/tuner/nccl_tuner_v6.hpp"

namespace arbench::tuner {
namespace {

using namespace nccl_abi;

struct Context {
  Logger log = nullptr;
  const char* abi = "";  // the interface NCCL loaded: "v6" or "v5"
  std::uint64_t comm = 0;
  int nranks = 0, nnodes = 0;
  std::string table_path;
  std::vector<Rule> rules;  // this communicator's (nranks, nnodes) only
  std::unique_ptr<std::atomic<std::uint64_t>[]> applied, ignored;  // per rule
  int force_channels = 0;  // kChannelsEnv: every all-reduce on this many channels
  std::atomic<std::uint64_t> forced{0};
  std::atomic<bool> shape_warned{false};  // a cost table of another shape was passed
};

void say(Logger log, LogLevel level, const std::string& msg) {
  if (log != nullptr) log(level, kSubsysInit | kSubsysTuning, __FILE__, __LINE__, "arbench tuner: %s", msg.c_str());
}

std::string describe(const Rule& r) {
  return std::to_string(r.min_bytes) + ".." + std::to_string(r.max_bytes) + " B -> " + algo_name(r.algo) + "/" +
         proto_name(r.proto) + (r.channels > 0 ? ", " + std::to_string(r.channels) + " channels" : ", NCCL's channels");
}

std::string comm_text(const Context& c) {
  char id[32];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(c.comm));
  return "communicator " + std::string(id) + " (" + std::to_string(c.nranks) + " ranks, " + std::to_string(c.nnodes) +
         (c.nnodes == 1 ? " node)" : " nodes)");
}

// The start of the one INFO line per communicator.
std::string loaded_text(const Context& c) {
  return std::string("loaded (ncclTunerPlugin_") + c.abi + ") for " + comm_text(c);
}

// Reads the table file whole; "" and `text` filled, or why not.
std::string read_file(const std::string& path, std::string& text) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::string("cannot open it: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "it is not a regular file (a directory?)";
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::string("cannot open it: ") + std::strerror(errno);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return "cannot read it";
  if (std::uint64_t(size) > kMaxFileBytes) return "it is " + std::to_string(size) + " bytes, more than a tuner table";
  in.seekg(0);
  text.assign(std::size_t(size), '\0');
  if (size > 0 && !in.read(text.data(), size)) return "cannot read it";
  return {};
}

void setup_channels(Context& c, const char* value) {
  const std::optional<std::uint64_t> n = parse_u64(value);
  if (!n || *n < 1 || *n > std::uint64_t(kMaxChannels)) {
    say(c.log, kLogWarn, std::string(kChannelsEnv) + "='" + value + "' is not a channel count 1.." +
                             std::to_string(kMaxChannels) + "; NCCL's own choice is kept for every collective");
    return;
  }
  c.force_channels = int(*n);
  say(c.log, kLogInfo, loaded_text(c) + ": every all-reduce on " + std::to_string(c.force_channels) + " channels (" +
                           kChannelsEnv + "; at most the communicator's channel count)");
}

void setup_table(Context& c, const void* caller) {
  const std::string refuse = "refusing table " + c.table_path + ": ";
  const std::string kept = "; NCCL's own choice is kept for every collective";
  std::string text;
  if (std::string why = read_file(c.table_path, text); !why.empty()) return say(c.log, kLogWarn, refuse + why + kept);
  Table t;
  if (std::string why = parse_table(text, t); !why.empty()) return say(c.log, kLogWarn, refuse + "malformed: " + why + kept);
  const int code = probe_nccl_version(caller);
  int major = 0, minor = 0;
  nccl_major_minor(code, major, minor);
  if (code == 0) return say(c.log, kLogWarn, refuse + "cannot tell which NCCL loaded the plugin (no ncclGetVersion)" + kept);
  const NcclVersionCheck version = check_nccl_version(t.nccl_major, t.nccl_minor, code);
  if (!version.refuse.empty()) return say(c.log, kLogWarn, refuse + version.refuse + kept);
  std::string problem;
  const Machine here = probe_machine(problem);
  if (!problem.empty()) return say(c.log, kLogWarn, refuse + problem + kept);
  if (std::string why = machine_mismatch(t.machine, here); !why.empty())
    return say(c.log, kLogWarn, refuse + "another machine: " + why + " (measure this one: arbench run)" + kept);

  for (const Rule& r : t.rules)
    if (r.nranks == c.nranks && r.nnodes == c.nnodes) c.rules.push_back(r);
  if (c.rules.empty()) {
    std::string worlds;
    for (const Rule& r : t.rules) {
      const std::string w = std::to_string(r.nranks) + "x" + std::to_string(r.nnodes);
      if (worlds.find(" " + w + " ") == std::string::npos) worlds += " " + w + " ";
    }
    return say(c.log, kLogInfo, loaded_text(c) + ": table " + c.table_path + " has no rule for it (ranks x nodes it has:" +
                                    (worlds.empty() ? std::string(" none") : worlds) + "); NCCL's own choice is kept");
  }
  c.applied.reset(new std::atomic<std::uint64_t>[c.rules.size()]());
  c.ignored.reset(new std::atomic<std::uint64_t>[c.rules.size()]());
  if (!version.warn.empty()) say(c.log, kLogWarn, comm_text(c) + ": " + version.warn);
  std::string line = loaded_text(c) + ": applying table " + c.table_path + " (from " + t.source + ", measured with NCCL " +
                     std::to_string(t.nccl_major) + "." + std::to_string(t.nccl_minor) + ", running NCCL " +
                     std::to_string(major) + "." + std::to_string(minor) + "): " + std::to_string(c.rules.size()) +
                     " all-reduce rules";
  for (const Rule& r : c.rules) line += "; " + describe(r);
  line += "; other sizes and collectives stay NCCL's choice";
  if (const int need = max_channels(c.rules, c.nranks, c.nnodes); need > 0) {
    const char* min_ctas = std::getenv("NCCL_MIN_CTAS");
    const std::optional<std::uint64_t> have = min_ctas ? parse_u64(min_ctas) : std::nullopt;
    if (!have || *have < std::uint64_t(need))
      line += ". Rules ask for up to " + std::to_string(need) + " channels; NCCL uses at most the communicator's "
              "channel count, fixed at its creation (NCCL_MIN_CTAS raises it)";
  }
  say(c.log, kLogInfo, line);
}

Result init_as(const char* abi, const void* caller, void** context, std::uint64_t comm_id, std::size_t n_ranks,
               std::size_t n_nodes, Logger log) {
  if (context == nullptr) return kSuccess;
  *context = nullptr;
  try {
    auto c = std::make_unique<Context>();
    c->log = log;
    c->abi = abi;
    c->comm = comm_id;
    c->nranks = int(n_ranks);
    c->nnodes = int(n_nodes);
    const char* table = std::getenv(kTableEnv);
    const char* channels = std::getenv(kChannelsEnv);
    const bool has_table = table != nullptr && *table != '\0', has_channels = channels != nullptr && *channels != '\0';
    if (has_table && has_channels) {
      say(log, kLogWarn, std::string("both ") + kTableEnv + " and " + kChannelsEnv + " are set; unset one. "
                         "NCCL's own choice is kept for every collective");
    } else if (has_channels) {
      setup_channels(*c, channels);
    } else if (has_table) {
      c->table_path = table;
      setup_table(*c, caller);
    } else {
      say(log, kLogInfo, loaded_text(*c) + ": " + kTableEnv + " is not set; NCCL's own choice is kept for every collective");
    }
    *context = c.release();
  } catch (...) {
    say(log, kLogWarn, "internal error while reading the table; NCCL's own choice is kept for every collective");
  }
  return kSuccess;
}

// NCCL calls init from its own code: the return address says which library loaded the plugin.
Result plugin_init_v5(void** context, std::uint64_t comm_id, std::size_t n_ranks, std::size_t n_nodes, Logger log,
                      NvlDomainInfo*, TunerConstants*) {
  return init_as("v5", __builtin_return_address(0), context, comm_id, n_ranks, n_nodes, log);
}
Result plugin_init_v6(void** context, std::uint64_t comm_id, std::size_t n_ranks, std::size_t n_nodes, Logger log,
                      NvlDomainInfo*, TunerConstants*) {
  return init_as("v6", __builtin_return_address(0), context, comm_id, n_ranks, n_nodes, log);
}

Result plugin_get_coll_info(void* context, int coll_type, std::size_t n_bytes, int, float** cost_table, int num_algo,
                            int num_proto, int, int* n_channels) {
  try {
    auto* c = static_cast<Context*>(context);
    if (c == nullptr || coll_type != kFuncAllReduce || cost_table == nullptr || n_channels == nullptr) return kSuccess;
    if (c->force_channels > 0) {
      *n_channels = c->force_channels;
      if (c->forced.fetch_add(1) == 0)
        say(c->log, kLogInfo, comm_text(*c) + ": all-reduce of " + std::to_string(n_bytes) + " B on " +
                                  std::to_string(c->force_channels) + " channels");
      return kSuccess;
    }
    if (c->rules.empty()) return kSuccess;
    // The table's indices are NCCL's 7 x 3 (tuner_table.hpp): a table of another shape is another
    // layout, whose cells this plugin cannot name; it is left as NCCL passed it.
    if (num_algo != kNumAlgorithms || num_proto != kNumProtocols) {
      if (!c->shape_warned.exchange(true))
        say(c->log, kLogWarn, comm_text(*c) + ": NCCL passed a cost table of " + std::to_string(num_algo) +
                                  " algorithms x " + std::to_string(num_proto) + " protocols, the table's rules index " +
                                  std::to_string(kNumAlgorithms) + " x " + std::to_string(kNumProtocols) +
                                  "; refusing it: NCCL's own choice is kept for every all-reduce");
      return kSuccess;
    }
    const Rule* r = find_rule(c->rules, c->nranks, c->nnodes, n_bytes);
    if (r == nullptr || r->algo >= num_algo || r->proto >= num_proto) return kSuccess;
    const std::size_t i = std::size_t(r - c->rules.data());
    // NCCL passes a flat float[numAlgo][numProto] cast to float** (enqueue.cc): index it flat.
    float& cell = reinterpret_cast<float*>(cost_table)[r->algo * num_proto + r->proto];
    if (cell < 0.0f) {  // NCCL_ALGO_PROTO_IGNORE: disabled (NCCL_ALGO/NCCL_PROTO) or unsupported here
      if (c->ignored[i].fetch_add(1) == 0)
        say(c->log, kLogWarn, comm_text(*c) + ": rule " + describe(*r) + " not applied at " + std::to_string(n_bytes) +
                                  " B: NCCL does not offer " + algo_name(r->algo) + "/" + proto_name(r->proto) +
                                  " here (NCCL_ALGO / NCCL_PROTO, or not supported); NCCL's own choice is kept");
      return kSuccess;
    }
    cell = 0.0f;
    if (r->channels > 0) *n_channels = r->channels;
    if (c->applied[i].fetch_add(1) == 0)
      say(c->log, kLogInfo, comm_text(*c) + ": applied rule " + describe(*r) + " to an all-reduce of " +
                                std::to_string(n_bytes) + " B");
  } catch (...) {
  }
  return kSuccess;
}

Result plugin_finalize(void* context) {
  auto* c = static_cast<Context*>(context);
  if (c == nullptr) return kSuccess;
  try {
    std::string counts;
    for (std::size_t i = 0; i < c->rules.size(); ++i)
      counts += "; " + describe(c->rules[i]) + ": applied " + std::to_string(c->applied[i].load()) + " times" +
                (c->ignored[i].load() > 0 ? ", not offered " + std::to_string(c->ignored[i].load()) + " times" : "");
    if (c->force_channels > 0)
      counts = "; " + std::to_string(c->forced.load()) + " all-reduces on " + std::to_string(c->force_channels) + " channels";
    if (!counts.empty()) say(c->log, kLogInfo, comm_text(*c) + " finished" + counts);
  } catch (...) {
  }
  delete c;
  return kSuccess;
}

}  // namespace
}  // namespace arbench::tuner

// The symbols NCCL looks up: ncclTunerPlugin_v6 (NCCL 2.30, first), ncclTunerPlugin_v5 (NCCL 2.28
// and 2.29; 2.30 after v6): src/plugin/tuner.cc, v2.28.9-1..v2.30.7-1. The only ones exported.
extern "C" __attribute__((visibility("default"))) const arbench::nccl_abi::TunerV5 ncclTunerPlugin_v5 = {
    "arbench", arbench::tuner::plugin_init_v5, arbench::tuner::plugin_get_coll_info, arbench::tuner::plugin_finalize};
extern "C" __attribute__((visibility("default"))) const arbench::nccl_abi::TunerV6 ncclTunerPlugin_v6 = {
    "arbench", arbench::tuner::plugin_init_v6, arbench::tuner::plugin_get_coll_info, arbench::tuner::plugin_finalize,
    nullptr};
