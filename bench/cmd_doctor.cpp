// `arbench doctor`: reads what makes PCIe all-reduce hang or crawl on this box (ACS, IOMMU, P2P
// as reported and as it works, link training, BAR1, the driver, NCCL's path per pair, known-bad
// releases) and, with two GPUs or more, runs the posted-write collapse probe; prints each value
// read, its verdict and the fix. Exit 0 when nothing slows or may hang, 4 when something slows,
// 5 when something may hang (docs/doctor.md). The checks live in doctor/ (host-tested on fixture
// trees); this file asks NVML, CUDA, NCCL and lspci and hands their answers in.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "arbench/core/errors.hpp"
#include "cli/files.hpp"
#include "cli/subcommand.hpp"
#include "cli/values.hpp"
#include "commands.hpp"
#include "doctor/checks.hpp"
#include "doctor/report.hpp"
#include "io/output_paths.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "results/report.hpp"
#include "settings/catalogue/python_probe.hpp"
#include "text/wrap.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/gpu/pattern_probe.hpp"
#include "topo/nvml_loader.hpp"

namespace arbench {
namespace {

struct DoctorArgs {
  std::string sysfs_root, out, nccl, python;
  bool json = false, no_probe = false;
  std::size_t probe_bytes = std::size_t{16} << 20;
  double probe_budget_s = 20;
};

constexpr double kPythonBound_s = 60;

void ask_nvml(doctor::Inputs& in) {
  auto nvml = topo::Nvml::load(&in.nvml.why);
  if (!nvml) return;
  in.nvml.loaded = true;
  in.nvml.driver_version = nvml->driver_version();
  for (const auto& g : in.topo.gpus)
    in.nvml.gpus[g.bus_id] = {nvml->persistence_mode(g.bus_id), nvml->bar1_bytes(g.bus_id), nvml->memory_bytes(g.bus_id)};
  for (const auto& a : in.topo.gpus)
    for (const auto& b : in.topo.gpus)
      if (a.bus_id != b.bus_id)
        in.nvml.p2p[{a.bus_id, b.bus_id}] = {nvml->p2p_status(a.bus_id, b.bus_id, 0), nvml->p2p_status(a.bus_id, b.bus_id, 1)};
}

// `lspci -vvv -s BDF`, bounded by coreutils' timeout; nullopt when it printed nothing.
std::optional<std::string> lspci(const std::string& bdf) {
  const std::string cmd = "timeout 5 lspci -vvv -s " + bdf + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  if (out.empty()) return std::nullopt;
  return out;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((d + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

// The GPUs: the functional P2P check on every pair CUDA reports, then the collapse probe on the
// pairs that passed it.
void ask_gpus(doctor::Inputs& in, const DoctorArgs& a) {
  std::vector<topo::CudaGpu> gpus;
  try {
    gpus = topo::list_cuda_gpus();
  } catch (const Error& e) {
    // Its first clause ("no CUDA device is usable (cudaGetDeviceCount: ...)"); the rest is topo's advice.
    std::string why = e.what();
    if (const std::size_t end = why.find("): "); end != std::string::npos) why.resize(end + 1);
    in.functional.why = in.probe_skipped = why;
    return;
  }
  std::vector<int> ordinals;
  for (const auto& g : gpus) {
    ordinals.push_back(g.ordinal);
    in.functional.bus_ids.push_back(g.bus_id);
  }
  try {
    in.functional.access = check_device_peer_access(ordinals, reported_peer_access(ordinals));
  } catch (const Error& e) {  // the devices themselves cannot be used: said, never a probe on them
    in.functional.why = in.probe_skipped = std::string("the GPUs cannot be used: ") + e.what();
    return;
  }
  in.functional.ran = true;
  if (a.no_probe) {
    in.probe_skipped = "--no-probe";
    return;
  }
  if (gpus.size() < 2) {
    in.probe_skipped = "fewer than 2 GPUs";
    return;
  }
  std::vector<std::vector<int>> ok(gpus.size(), std::vector<int>(gpus.size(), 0));
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = 0; j < gpus.size(); ++j) ok[i][j] = in.functional.access.at(int(i), int(j)).path == PeerPath::ok;
  topo::PatternProbeOptions opt;
  opt.bytes = a.probe_bytes;
  opt.budget_s = a.probe_budget_s;
  const auto patterns = doctor::collapse_patterns(ok);
  const auto results = topo::run_pattern_probe(gpus, patterns, opt);
  doctor::CollapseFigures f = doctor::collapse_figures(ok, patterns, results, opt.bytes / 16 * 16, opt.repetitions);
  for (std::size_t i = 0; i < gpus.size(); ++i) f.labels[i] = "cuda:" + std::to_string(gpus[i].ordinal);
  in.probe = std::move(f);
}

StackVersions versions(const DoctorArgs& a) {
  StackVersions s;
  if (!a.python.empty()) s = probe_python(a.python, kPythonBound_s).stack;
  if (!a.nccl.empty()) s.nccl = parse_version(a.nccl);
  return s;
}

int run_doctor(const DoctorArgs& a) {
  check_output_paths({{"--out", a.out}});
  const bool machine = a.sysfs_root.empty();
  doctor::Inputs in = doctor::host_inputs(machine ? "/" : a.sysfs_root);
  for (const char* k : {"NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE"})
    if (const char* v = std::getenv(k)) in.env[k] = v;
  in.stack = versions(a);
  if (machine) {
    ask_nvml(in);
    if (on_path("lspci") && on_path("timeout")) in.lspci = lspci;
    if (NcclApi::available()) in.arbench_nccl = NcclApi::version_or_reason();
    ask_gpus(in, a);
  } else {
    const std::string why = "--sysfs-root reads a saved tree (NVML, CUDA and the probe would describe this machine)";
    in.nvml.why = in.functional.why = in.probe_skipped = why;
  }
  const std::vector<doctor::Check> checks = doctor::run_checks(in);
  const nlohmann::json doc = doctor::report_to_json(checks, in.root.string());
  if (!a.out.empty()) write_file_atomically(a.out, doc.dump(2) + "\n");
  if (a.json) {
    std::cout << doc.dump(2) << "\n";
  } else {
    std::ostringstream head;
    head << "arbench doctor: " << in.topo.gpus.size() << " NVIDIA GPU(s) under " << (in.root / "sys").string();
    if (!in.topo.unplaced.empty()) head << " (" << in.topo.unplaced.size() << " not placed in the PCIe tree)";
    head << "\n";
    if (machine)
      head << fit_line("  NVML: " + (in.nvml.loaded ? std::string("loaded") : in.nvml.why), 4)
           << fit_line("  functional P2P check: " + (in.functional.ran ? std::string("ran") : in.functional.why), 4)
           << fit_line("  collapse probe: " + (in.probe ? std::string("ran") : in.probe_skipped), 4);
    else
      head << "  NVML, CUDA, the functional P2P check and the probe: not asked (--sysfs-root reads a saved tree)\n";
    std::cout << doctor::render_report(checks, head.str());
    if (!a.out.empty()) std::cout << "\nWrote " << a.out << " (give it to `arbench run --doctor FILE`)\n";
  }
  return doctor::exit_code(doctor::worst(checks));
}

}  // namespace

void add_doctor_command(CLI::App& app, int& exit_code) {
  const auto [sub, args] = cli::subcommand<DoctorArgs>(
      app, "doctor", "What makes PCIe all-reduce hang or crawl on this box: what was read, the verdict, the fix");
  cli::input_dir(*sub, "--sysfs-root", args->sysfs_root,
                 "read sysfs and /proc from DIR/sys and DIR/proc instead of this machine's (no NVML, CUDA or probe)");
  sub->add_flag("--json", args->json, "print the report as JSON (one object per check) instead of the table");
  cli::output_file(*sub, "--out", args->out, "also write the JSON report here (atomically): `arbench run --doctor` reads it");
  sub->add_flag("--no-probe", args->no_probe, "skip the posted-write collapse probe (the only GPU work besides the P2P check)");
  cli::size(*sub, "--probe-bytes", args->probe_bytes, cli::byte_sizes(64 * 1024, 1024.0L * (1 << 20)),
            "bytes per flow and repetition of the collapse probe (default 16M)");
  cli::number(*sub, "--probe-budget", args->probe_budget_s, "S", cli::positive(600),
              "seconds the collapse probe may take; patterns left after it are skipped (default 20)");
  sub->add_option("--nccl", args->nccl, "the NCCL version your engine loads, for the known-bad releases")
      ->check(CLI::Validator([](std::string& s) { return nccl_version_problem(s); }, "", ""))
      ->option_text("X.Y.Z");
  cli::text(*sub, "--python", args->python, "PYTHON",
            "the engine's Python interpreter: arbench asks it for the engines' and torch's NCCL versions (--nccl "
            "overrides its NCCL)");
  cli::on_run(*sub, exit_code, args, [sub = sub](DoctorArgs& a) {
    for (const char* o : {"--no-probe", "--probe-bytes", "--probe-budget"})
      if (sub->count(o) > 0 && !a.sysfs_root.empty())
        throw UsageError(std::string(o) + " sets the probe on this machine's GPUs, and --sysfs-root reads a saved tree "
                                          "and probes nothing; drop one of the two");
    if (a.no_probe && (sub->count("--probe-bytes") > 0 || sub->count("--probe-budget") > 0))
      throw UsageError("--probe-bytes and --probe-budget set the probe, which --no-probe skips; drop one of the two");
    return run_doctor(a);
  });
}

}  // namespace arbench
