// `arbench topo`: the PCIe tree, relation codes and ring order from sysfs; with GPUs, also the
// CUDA P2P matrix and measured link bandwidth and latency. `--sysfs-root DIR` reads a saved or
// fixture sysfs tree and needs no GPU. `--loaded` adds the links measured all at once
// (topo/loaded.hpp). Measuring, it also runs every schedule's traffic pattern (the speed-of-light
// floor's rates, bench/sol/; `--no-patterns` skips them; on CPU threads with --backend host).
// `--out FILE.json` writes everything (and the links file that `arbench run --links` reads,
// patterns included) atomically.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "arbench/core/errors.hpp"
#include "islands/derive.hpp"
#include "islands/link_costs.hpp"
#include "topo/links.hpp"
#include "topo/nodes.hpp"
#include "topo/report.hpp"
#include "topo/ring_order.hpp"
#include "topo/tree.hpp"
#include "cli/files.hpp"
#include "cli/values.hpp"
#include "commands.hpp"
#include "io/output_paths.hpp"
#include "topo/nvml_loader.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/gpu/probe.hpp"
#include "arbench/core/peer_access.hpp"
#include "kernels/fabric/cuda/module_loading.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "run/run_sol.hpp"
#include "sol/host_probe.hpp"
#include "sol/pattern_rates.hpp"
#include "sol/probe_plan.hpp"
#include "islands/island_spec.hpp"
#include "sweep/run_config.hpp"

namespace arbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct TopoArgs {
  std::string backend = "cuda";
  int ranks = kMaxRanks;  // --gpus with --backend host
  std::string sysfs_root;
  std::string out;
  std::size_t bytes = 64 << 20;
  int reps = 20;
  int latency_rounds = 2000;
  double wait_timeout_s = 1.0;
  bool measure = true;   // the link measurements (--no-measure: off)
  bool loaded = false;
  bool patterns = true;  // the schedule patterns, the speed-of-light floor's rates (--no-patterns: off)
  BrokenPair planted;  // the test switch ARBENCH_TEST_BROKEN_P2P
};

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::error_code ignore;
      fs::remove(tmp, ignore);
      throw UsageError("cannot write --out " + path + " (via " + tmp + "); check the folder exists and is writable");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw UsageError("cannot move " + tmp + " to --out " + path + ": " + ec.message());
  }
}

// The world sizes the schedule patterns are measured for: powers of two from 2, and every rank.
std::vector<int> pattern_worlds(int ranks) {
  std::vector<int> w;
  for (int k = 2; k < ranks; k *= 2) w.push_back(k);
  if (ranks >= 2) w.push_back(ranks);
  return w;
}

// How long the schedule patterns may take on GPUs (patterns left are skipped, saying so).
constexpr double kPatternBudget_s = 60;

// How long the processes of an MPI run wait for the node that probes longest.
constexpr double kNodeProbeBound_s = 1800;

json base_json(const std::string& source) {
  return {{"schema", "arbench-topo/1"}, {"source", source}};
}

// The tree of a saved sysfs: its text to `os`, its JSON returned.
json topo_from_sysfs(const TopoArgs& args, std::ostream& os) {
  std::error_code ec;
  if (!fs::is_directory(args.sysfs_root, ec))
    throw UsageError("--sysfs-root " + args.sysfs_root + " is not a folder; give the folder that holds sys/ "
                     "(/ for this machine, or a fixture such as tests/fixtures/sysfs/one_switch_four_gpus)");
  topo::Topology t = topo::read_sysfs_topology(args.sysfs_root);
  os << topo::render_topology(t);
  std::vector<std::string> bus_ids, labels;
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    bus_ids.push_back(t.gpus[i].bus_id);
    labels.push_back("GPU" + std::to_string(i));
  }
  const islands::Derived isl = islands::derive_islands(t, bus_ids);
  if (!t.gpus.empty()) os << "\n" << islands::render_islands(isl, labels);
  os << "\nNo CUDA query and no measurement with --sysfs-root (it may describe another machine).\n";
  json j = base_json("sysfs");
  j["topology"] = topo::topology_to_json(t);
  j["islands"] = islands::islands_to_json(isl);
  return j;
}

// One CUDA device: its line of text (appended to `os`) and its JSON. The PCIe link comes from
// sysfs, or from NVML when sysfs knows nothing about it (containers that mask /sys).
json describe_gpu(const topo::CudaGpu& g, const topo::Topology& t, const topo::Nvml* nvml, std::ostream& os) {
  const std::string label = "cuda:" + std::to_string(g.ordinal);
  const int at = t.find_gpu(g.bus_id);
  topo::PcieLink link;
  std::optional<int> numa;
  std::string link_source = "sysfs", place;
  if (at >= 0) {
    link = t.gpus[at].link;
    numa = t.gpus[at].path.numa_node;
  } else {
    place = "no PCI path in sysfs: " + g.bus_id + " is not under /sys/bus/pci/devices";
    for (const auto& u : t.unplaced)
      if (u.bus_id == g.bus_id) place = "no PCI path in sysfs: " + u.reason;
  }
  if (nvml && topo::format_link(link) == "unknown") {
    if (auto l = nvml->pcie_link(g.bus_id)) {
      link = *l;
      link_source = "NVML";
    }
  }
  os << "  " << label << "  " << g.name << "  CC " << g.cc_major << "." << g.cc_minor << "  " << g.bus_id
     << "  NUMA " << (numa ? std::to_string(*numa) : "unknown") << "  link " << topo::format_link(link)
     << (link_source == "NVML" ? " (NVML)" : "") << (place.empty() ? "" : "  " + place) << "\n";
  return {{"ordinal", g.ordinal}, {"label", label}, {"name", g.name},
          {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
          {"bus_id", g.bus_id}, {"memory_bytes", g.memory_bytes}, {"sm_count", g.sm_count},
          {"numa_node", numa ? json(*numa) : json()}, {"link_source", link_source},
          {"link", topo::link_to_json(link)}, {"sysfs", place.empty() ? json("placed") : json(place)}};
}

// This machine: its text to `os`, its JSON returned.
json topo_from_machine(const TopoArgs& args, std::ostream& os) {
  topo::ProbeOptions opt;
  opt.bytes = args.bytes;
  opt.repetitions = args.reps;
  opt.latency_rounds = args.latency_rounds;
  opt.wait_timeout_s = args.wait_timeout_s;

  if (const std::string note = prepare_module_loading(); !note.empty()) std::cerr << "arbench: " << note << "\n";
  std::vector<topo::CudaGpu> gpus = topo::list_cuda_gpus();  // exit 3 without a device
  topo::Topology t = topo::read_sysfs_topology("/");
  std::string nvml_why;
  auto nvml = topo::Nvml::load(&nvml_why);
  std::ostringstream head;
  head << "CUDA devices: " << gpus.size();
  if (nvml)
    head << ", driver " << nvml->driver_version().value_or("unknown") << " (NVML)";
  else
    head << " (" << nvml_why << ")";
  head << "\n";
  std::vector<std::string> labels, bus_ids;
  for (const auto& g : gpus) {
    labels.push_back("cuda:" + std::to_string(g.ordinal));
    bus_ids.push_back(g.bus_id);
  }
  topo::Selection sel = topo::selection_for_bus_ids(t, bus_ids);
  json cuda = json::array();
  for (const auto& g : gpus) cuda.push_back(describe_gpu(g, t, nvml.get(), head));
  os << head.str() << "\n";
  if (!sel.gpus.empty()) os << topo::render_topology(t, sel) << "\n";
  const int n = static_cast<int>(gpus.size());
  topo::P2pMatrix p2p = topo::query_p2p(n);
  os << topo::render_p2p(p2p, labels) << "\n";
  // What cudaDeviceCanAccessPeer says, tried: every reported pair writes and reads a pattern
  // through its peer mapping (reported-but-broken pairs are what ACS redirection leaves).
  std::vector<int> ordinals;
  for (const auto& g : gpus) ordinals.push_back(g.ordinal);
  const PeerAccess peers = check_device_peer_access(ordinals, p2p.access, kPeerCheckBound_s, args.planted);
  os << topo::render_peer_access(peers, labels) << "\n";
  // Islands from the pairs whose data really moves: a reported-but-broken pair is no P2P.
  // The pairs that work (reported less what the functional check found broken): islands here and
  // for the patterns below.
  const std::vector<std::vector<int>> working = islands::working_p2p(p2p.access, peers);
  const islands::Derived isl = islands::derive_islands(t, bus_ids, working);
  os << islands::render_islands(isl, labels) << "\n";
  std::vector<int> ring = topo::ring_order_for_bus_ids(t, bus_ids);
  os << "Default ring order (CUDA devices):";
  for (int r : ring) os << " " << gpus[r].ordinal;
  os << "\n\n";

  json j = base_json("machine");
  j["cuda_gpus"] = cuda;
  j["driver_version"] = nvml ? json(nvml->driver_version().value_or("unknown")) : json();
  j["nvml"] = nvml ? json("loaded") : json(nvml_why);
  j["topology"] = topo::topology_to_json(t, sel);
  j["p2p"] = topo::p2p_to_json(p2p);
  j["peer_check"] = topo::peer_access_to_json(peers);
  j["ring_order"] = ring;
  j["islands"] = islands::islands_to_json(isl);
  if (!args.measure) {
    os << "Link measurements skipped (--no-measure).\n";
  } else {
    if (n < 2) os << "Only " << n << " GPU: pairwise measurements skipped; the diagonal is within one GPU.\n";
    topo::Links links = topo::run_link_probes(gpus, opt);
    os << "Measured links:\n";
    for (const auto& [name, m] : links.matrices) os << "\n" << topo::render_link_matrix(name, m, labels);
    j["links"] = topo::links_to_json(links);
    if (isl.unknown.empty()) {
      std::vector<int> index;
      for (int g = 0; g < n; ++g) index.push_back(g);
      std::string why;
      if (const auto c = islands::link_costs(links, index, isl.island_of, &why)) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "\nIsland links (medians; the island model's inputs): inside %.2f us, %.1f GB/s; across %.2f us, "
                      "%.1f GB/s\n",
                      c->intra_latency_s * 1e6, c->intra_gbps, c->cross_latency_s * 1e6, c->cross_gbps);
        os << line;
        j["islands"]["link_costs"] = {{"intra_latency_us", c->intra_latency_s * 1e6}, {"intra_gbps", c->intra_gbps},
                                      {"cross_latency_us", c->cross_latency_s * 1e6}, {"cross_gbps", c->cross_gbps}};
      } else {
        os << "\nIsland links: not known (" << why << ")\n";
        j["islands"]["link_costs"] = nullptr;
      }
    }
    if (args.loaded) {
      topo::LoadedLinks loaded = topo::run_loaded_probes(gpus, opt);
      os << "\n" << topo::render_loaded(loaded, links, labels);
      j["loaded"] = topo::loaded_to_json(loaded, links);
    }
    if (args.patterns && n >= 2) {
      // The schedules' own patterns (bench/sol/probe_plan.hpp), each world size on GPUs 0..w-1 in
      // the ring order and islands a run of w ranks uses: the speed-of-light floor's rates.
      std::map<int, std::vector<int>> orders, island_of;
      for (int w : pattern_worlds(n)) {
        const std::vector<std::string> ids(bus_ids.begin(), bus_ids.begin() + w);
        orders[w] = topo::ring_order_for_bus_ids(t, ids);
        std::vector<std::vector<int>> access;
        for (int a = 0; a < w; ++a) access.emplace_back(working[std::size_t(a)].begin(), working[std::size_t(a)].begin() + w);
        if (const islands::Derived d = islands::derive_islands(t, ids, access); d.unknown.empty()) island_of[w] = d.island_of;
      }
      const sol::PatternRates rates =
          measure_pattern_rates(gpus, sol::probe_plan(n, pattern_worlds(n), orders, island_of),
                                {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{16} << 20}, 5,
                                std::max(args.wait_timeout_s, 5.0), kPatternBudget_s);
      os << "\n" << sol::render_pattern_rates(rates);
      j["patterns"] = sol::pattern_rates_to_json(rates);
    }
  }
  return j;
}

// The host backend: no GPU, no PCIe tree; only the functional peer check of N CPU ranks through
// their shared memory (what a run on the host backend checks before its first case; with the
// test switch ARBENCH_TEST_BROKEN_P2P a pair shows as reported-but-broken).
json topo_of_host(const TopoArgs& args, std::ostream& os) {
  if (args.ranks < 2 || args.ranks > kMaxRanks)
    throw UsageError("--gpus " + std::to_string(args.ranks) + ": the host backend's peer check needs 2 to " +
                     std::to_string(kMaxRanks) + " CPU ranks");
  HostFabric f(args.ranks, 10.0, args.planted);
  std::vector<std::string> labels;
  for (int r = 0; r < args.ranks; ++r) labels.push_back("rank:" + std::to_string(r));
  os << "Host backend: " << args.ranks << " CPU ranks share this process's memory. No GPU, no PCIe tree, no link "
        "measurement: only the functional peer-to-peer check a host run starts with.\n\n";
  os << topo::render_peer_access(*f.peer_access(), labels);
  json j = base_json("host");
  j["peer_check"] = topo::peer_access_to_json(*f.peer_access());
  if (args.patterns) {
    // The schedule patterns on CPU threads (what a host run's floors use): CPU timing.
    const sol::PatternRates rates = sol::run_host_pattern_probe(
        sol::probe_plan(args.ranks, pattern_worlds(args.ranks), {}, islands::halves(pattern_worlds(args.ranks))),
        args.ranks, {});
    os << "\n" << sol::render_pattern_rates(rates);
    j["patterns"] = sol::pattern_rates_to_json(rates);
  }
  return j;
}

}  // namespace

void add_topo_command(CLI::App& app, int& exit_code, World& world) {
  auto args = std::make_shared<TopoArgs>();
  CLI::App* cmd = app.add_subcommand(
      "topo", "PCIe topology, relation codes, CUDA P2P matrix and measured link bandwidth and latency");
  cli::input_dir(*cmd, "--sysfs-root", args->sysfs_root,
                 "read the PCIe tree from DIR/sys instead of querying this machine (no GPU needed; nothing is "
                 "measured)");
  cli::output_file(*cmd, "--out", args->out, "write everything as JSON (atomically); a links file for run --links");
  cli::size(*cmd, "--bytes", args->bytes, cli::byte_sizes(16, 4.0L * (1ULL << 30)),
            "bytes per copy for the bandwidth probes (default 64M)");
  cli::number(*cmd, "--reps", args->reps, "N", cli::ints(1, 1000000), "timed copies per bandwidth cell (default 20)");
  cli::number(*cmd, "--latency-rounds", args->latency_rounds, "N", cli::ints(0, 10000000),
              "ping-pong round trips per latency cell (default 2000; 0: no latency measurement)");
  cli::number(*cmd, "--wait-timeout", args->wait_timeout_s, "S", cli::positive(3600),
              "bound in seconds on each GPU spin wait (default 1)");
  cli::off_flag(*cmd, "--no-measure", args->measure,
                "skip the link measurements (tree, P2P attributes and the functional P2P check only)");
  cli::choice(*cmd, "--backend", args->backend, {"cuda", "host"},
              "cuda: this machine's GPUs; host: no GPU, only the functional peer check of --gpus CPU ranks (what a "
              "host run checks first; default cuda)");
  cli::number(*cmd, "--gpus", args->ranks, "N", cli::ints(2, kMaxRanks),
              "with --backend host: the CPU ranks to check (default " + std::to_string(kMaxRanks) + ")");
  cli::off_flag(*cmd, "--no-patterns", args->patterns,
                "skip the schedule patterns (every schedule's own traffic at once, on GPUs or CPU threads: the "
                "speed-of-light floor's rates, which `run --links FILE` reuses)");
  cmd->add_flag("--loaded", args->loaded,
                "also load every link at once (all GPUs push to, then pull from, every peer; copy engines and SM "
                "kernels): per-GPU and aggregate GB/s, worst link, latency under load, dense-interconnect score");
  cmd->callback([args, &exit_code, &world, cmd] {
    const bool host = args->backend == "host";
    if (cmd->count("--gpus") > 0 && !host)
      throw UsageError("--gpus " + std::to_string(args->ranks) + " is for --backend host (the CPU ranks to check); "
                       "on GPUs topo checks every visible GPU: use CUDA_VISIBLE_DEVICES to choose them");
    // Options that cannot affect what runs are refused, never silently ignored.
    if (cmd->count("--no-patterns") > 0 && (!args->measure || !args->sysfs_root.empty()))
      throw UsageError(std::string("--no-patterns skips the schedule patterns, which ") +
                       (!args->measure ? "--no-measure" : "--sysfs-root") + " never measures; drop one of the two");
    for (const char* o :
         {"--bytes", "--reps", "--latency-rounds", "--wait-timeout", "--no-measure", "--loaded", "--sysfs-root"}) {
      if (cmd->count(o) == 0) continue;
      if (host)
        throw UsageError(std::string(o) + " measures or reads a real machine; --backend host only runs the "
                                          "functional peer check of --gpus CPU ranks: drop one of the two");
      if (std::string(o) == "--sysfs-root") continue;
      if (!args->sysfs_root.empty())
        throw UsageError(std::string(o) + " concerns the measurements on this machine's GPUs, and --sysfs-root reads "
                                          "a saved tree and measures nothing; drop one of the two");
      if (!args->measure && std::string(o) != "--no-measure")
        throw UsageError(std::string(o) + (std::string(o) == "--loaded"
                                               ? " measures the links under load and compares them with the idle "
                                                 "ones, so it cannot run with --no-measure; drop one of the two"
                                               : " sets the link measurements, which --no-measure skips; drop one of "
                                                 "the two"));
    }
    if (world.rank() == 0) check_output_paths({{"--out", args->out}});
    args->planted = parse_broken_pair(std::getenv("ARBENCH_TEST_BROKEN_P2P"));
    if (args->planted.a >= 0 && world.rank() == 0)
      std::cerr << "arbench: test switch ARBENCH_TEST_BROKEN_P2P=" << args->planted.a << "," << args->planted.b
                << ": that pair's peer-to-peer data goes elsewhere (the peer check must find it)\n";
    auto one_node = [args, host](std::ostream& os) {
      if (host) return topo_of_host(*args, os);
      return args->sysfs_root.empty() ? topo_from_machine(*args, os) : topo_from_sysfs(*args, os);
    };
    json doc;
    if (world.multi_process()) {
      // Each node's local process 0 reports its node; process 0 prints them all (topo/nodes.hpp).
      world.set_wait_bound_s(kNodeProbeBound_s);
      doc = topo::report_every_node(world, one_node, std::cout);
      if (world.rank() != 0) return;
    } else {
      doc = one_node(std::cout);
    }
    if (!args->out.empty()) {
      write_atomically(args->out, doc.dump(2) + "\n");
      std::cout << "\nWrote " << args->out
                << (!args->measure || !args->sysfs_root.empty() || doc.contains("nodes")
                        ? "" : " (use it as `arbench run --links FILE`)") << "\n";
    }
    exit_code = kExitOk;
  });
}

}  // namespace arbench
