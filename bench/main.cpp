// arbench: all-reduce microbenchmarks for PCIe multi-GPU boxes. Subcommands: run (default),
// list, compare, tune, topo, step, settings, doctor. `--benchmark_*` flags go to Google Benchmark
// (those arbench honours: cli/gbench_flags.hpp). Under mpirun / srun every process is one rank of one run
// (docs/multi-process.md); process 0 prints.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/core/peers.hpp"
#include "cli/gbench_flags.hpp"
#include "cli/help_format.hpp"
#include "cli/parse_errors.hpp"
#include "commands.hpp"
#include "kernels/fabric/cuda/module_loading.hpp"
#include "mpi/start_world.hpp"
#include "results/provenance.hpp"

namespace {

// The peers built in (docs/variants.md, "Peers"): each copy with its version, commit and origin,
// and each peer variant with where it came from or why it was not built.
std::string peers_text() {
  using namespace arbench;
  const PeerBuild& b = peer_build();
  if (b.sources.empty()) return "peers: none built" + (b.off_reason.empty() ? std::string() : " (" + b.off_reason + ")");
  std::string s = "peers built from:";
  for (const PeerSource& src : b.sources) s += "\n  " + peer_source_text(src, true);
  for (const auto& [name, why] : b.variants)
    s += "\n  " + name + ": " + (why.empty() ? (name == "vllm-custom" ? b.vllm_from : std::string("built")) : "not built: " + why);
  return s + "\n  (licences: share/arbench/peers/ of the install)";
}

// `arbench --version`: what was built, from which revision, against which CUDA and NCCL.
std::string version_text() {
  using namespace arbench;
  const int cuda = CUDART_VERSION;
  return std::string("arbench ") + ARBENCH_VERSION_STRING + " (revision " +
         host_provenance("", "").arbench_revision + ")\n" + "built with CUDA " + std::to_string(cuda / 1000) + "." +
         std::to_string(cuda % 1000 / 10) + " and NCCL " + std::to_string(NCCL_MAJOR) + "." +
         std::to_string(NCCL_MINOR) + "." + std::to_string(NCCL_PATCH) +
         " headers (NCCL is loaded at run time: the cuda backend needs libnccl >= 2.28)\n" +
         (built_with_mpi() ? "multi-process mode: MPI" : "single-process build: no MPI") + "\n" + peers_text();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace arbench;
  // Before anything may create a CUDA context (a CUDA-aware MPI_Init can): every kernel is loaded
  // with the context, none at its first launch (kernels/fabric/cuda/module_loading.hpp).
  const std::string module_loading_note = prepare_module_loading();
  std::unique_ptr<World> world;
  try {
    world = start_world(&argc, &argv, detect_launch());
  } catch (const Error& e) {
    std::cerr << "arbench: error: " << e.what() << "\n";
    return e.exit_code();
  }
  const bool lead = world->rank() == 0;
  if (lead && !module_loading_note.empty()) std::cerr << "arbench: " << module_loading_note << "\n";
  std::ostream quiet(nullptr);  // what processes other than 0 print instead of the console
  std::ostream& out = lead ? std::cout : quiet;
  std::ostream& err = lead ? std::cerr : quiet;

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  // Google Benchmark's flags go to it (once checked); everything else to CLI11.
  std::vector<char*> args = {argv[0]};
  std::vector<std::string> gbench_flags;
  for (int i = 1; i < argc; ++i) {
    if (cli::is_gbench_flag(argv[i]))
      gbench_flags.emplace_back(argv[i]);
    else
      args.push_back(argv[i]);
  }
  // `run` is the default subcommand: `arbench --gpus 2` means `arbench run --gpus 2`.
  static char run_word[] = "run";
  const std::vector<std::string> subcommands = {"run", "list", "compare", "tune", "topo", "step", "settings", "doctor"};
  const bool wants_help = args.size() > 1 && (std::strcmp(args[1], "-h") == 0 || std::strcmp(args[1], "--help") == 0 ||
                                               std::strcmp(args[1], "--version") == 0);
  std::string sub;
  for (std::size_t i = 1; i < args.size() && sub.empty(); ++i)
    for (const auto& s : subcommands)
      if (s == args[i]) sub = s;
  if (!wants_help && sub.empty()) {
    if (args.size() > 1 && args[1][0] != '-') {
      err << "arbench: unknown subcommand '" << args[1] << "'; subcommands: run (default), list, compare, "
                   "tune, topo, step, settings, doctor. See arbench --help\n";
      return kExitUsage;
    }
    args.insert(args.begin() + 1, run_word);
    sub = "run";
  }
  if (world->multi_process() && !wants_help && sub != "run" && sub != "list" && sub != "topo") {
    err << "arbench: error: `arbench " << sub << "` reads and writes files in one process; start it without "
        << world->layout().launcher << " (only run, list and topo span processes)\n";
    return kExitUsage;
  }
  cli::GbenchFlags gbench;
  try {
    gbench = cli::check_gbench_flags(gbench_flags, wants_help ? std::string("run") : sub);
  } catch (const Error& e) {
    err << cli::error_text("arbench: error: ", e.what());
    return e.exit_code();
  }
  static char wide_flag[] = "--wide";
  if (gbench.console_format) args.push_back(wide_flag);

  std::vector<char*> gbench_args = {argv[0]};
  for (std::string& f : gbench.flags) gbench_args.push_back(f.data());
  int gargc = int(gbench_args.size());
  benchmark::Initialize(&gargc, gbench_args.data());
  if (gargc > 1 && (!lead || benchmark::ReportUnrecognizedArguments(gargc, gbench_args.data()))) return kExitUsage;

  CLI::App app{"arbench: which all-reduce is fastest on this PCIe multi-GPU box, at each size and GPU count"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  int exit_code = kExitOk;
  add_run_commands(app, exit_code, command_line, *world, gbench.out_file);
  add_compare_command(app, exit_code);
  add_tune_command(app, exit_code);
  add_topo_command(app, exit_code, *world);
  add_step_command(app, exit_code);
  add_settings_command(app, exit_code);
  add_doctor_command(app, exit_code);
  cli::use_help_formatter(app);
  try {
    app.parse(int(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << cli::parse_error_text(e, sub);
    return kExitUsage;
  } catch (const Error& e) {
    // Raised by this process alone while its peers may wait for it: end them all.
    if (world->multi_process() && dynamic_cast<const AgreedError*>(&e) == nullptr)
      world->abort(e.exit_code(), std::string("error: ") + e.what());
    err << cli::error_text("arbench: error: ", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    if (world->multi_process()) world->abort(kExitFailure, std::string("internal error: ") + e.what());
    std::cerr << "arbench: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return exit_code;
}
