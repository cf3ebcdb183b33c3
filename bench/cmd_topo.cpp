// `arbench topo`: the PCIe tree, relation codes and ring order from sysfs; with GPUs, also the
// CUDA P2P matrix and measured link bandwidth and latency. `--sysfs-root DIR` reads a saved or
// fixture sysfs tree and needs no GPU. `--loaded` adds the links measured all at once
// (topo/loaded.hpp). `--out FILE.json` writes everything (and the links file that
// `arbench run --links` reads) atomically.
#include <unistd.h>

#include <cstdio>

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
#include "commands.hpp"
#include "topo/nvml_loader.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/gpu/probe.hpp"

namespace arbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct TopoArgs {
  std::string sysfs_root;
  std::string out;
  std::string bytes = "64MiB";
  int reps = 20;
  int latency_rounds = 2000;
  double wait_timeout_s = 1.0;
  bool no_measure = false;
  bool loaded = false;
};

// "65536", "64K", "64KiB", "64M", "1G" (binary units) -> bytes.
std::size_t parse_bytes(const std::string& text) {
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  std::string unit = text.substr(pos);
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  if (unit.size() == 2 && unit[1] == 'i') unit.pop_back();
  const std::string units = "KMG";
  auto u = unit.size() == 1 ? units.find(unit[0]) : std::string::npos;
  if (pos == 0 || (!unit.empty() && u == std::string::npos))
    throw UsageError("--bytes '" + text + "' is not a size; write e.g. 65536, 256K, 64M or 1G");
  if (!unit.empty()) v <<= 10 * (u + 1);
  if (v < 16 || v > (4ULL << 30))
    throw UsageError("--bytes " + text + " is out of range; use 16 bytes to 4G per copy");
  return static_cast<std::size_t>(v);
}

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
  opt.bytes = parse_bytes(args.bytes);
  if (args.reps < 1) throw UsageError("--reps " + std::to_string(args.reps) + " must be at least 1");
  if (args.latency_rounds < 0) throw UsageError("--latency-rounds must be 0 (off) or more");
  if (!(args.wait_timeout_s > 0)) throw UsageError("--wait-timeout must be a positive number of seconds");
  if (args.loaded && args.no_measure)
    throw UsageError("--loaded measures the links under load and compares them with the idle ones, so it cannot run "
                     "with --no-measure; drop one of the two");
  opt.repetitions = args.reps;
  opt.latency_rounds = args.latency_rounds;
  opt.wait_timeout_s = args.wait_timeout_s;

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
  const islands::Derived isl = islands::derive_islands(t, bus_ids, p2p.access);
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
  j["ring_order"] = ring;
  j["islands"] = islands::islands_to_json(isl);
  if (args.no_measure) {
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
  }
  return j;
}

}  // namespace

void add_topo_command(CLI::App& app, int& exit_code, World& world) {
  auto args = std::make_shared<TopoArgs>();
  CLI::App* cmd = app.add_subcommand(
      "topo", "PCIe topology, relation codes, CUDA P2P matrix and measured link bandwidth and latency");
  cmd->add_option("--sysfs-root", args->sysfs_root,
                  "Read the PCIe tree from DIR/sys instead of querying this machine (no GPU needed)");
  cmd->add_option("--out", args->out, "Write everything as JSON to FILE (atomically); a links file for run --links");
  cmd->add_option("--bytes", args->bytes, "Bytes per copy for the bandwidth probes (e.g. 64M)")
      ->capture_default_str();
  cmd->add_option("--reps", args->reps, "Timed copies per bandwidth cell")->capture_default_str();
  cmd->add_option("--latency-rounds", args->latency_rounds, "Ping-pong round trips per latency cell (0: off)")
      ->capture_default_str();
  cmd->add_option("--wait-timeout", args->wait_timeout_s, "Bound in seconds on each GPU spin wait")
      ->capture_default_str();
  cmd->add_flag("--no-measure", args->no_measure, "Skip the link measurements (tree and P2P attributes only)");
  cmd->add_flag("--loaded", args->loaded,
                "Also load every link at once (all GPUs push to, then pull from, every peer; copy engines and SM "
                "kernels): per-GPU and aggregate GB/s, worst link, latency under load, dense-interconnect score");
  cmd->callback([args, &exit_code, &world] {
    if (args->loaded && !args->sysfs_root.empty())
      throw UsageError("--loaded measures this machine's GPUs; it cannot run with --sysfs-root (a saved tree)");
    auto one_node = [args](std::ostream& os) {
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
                << (args->no_measure || !args->sysfs_root.empty() || doc.contains("nodes")
                        ? "" : " (use it as `arbench run --links FILE`)") << "\n";
    }
    exit_code = kExitOk;
  });
}

}  // namespace arbench
