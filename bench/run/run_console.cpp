#include "run/run_console.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "analysis/report_table.hpp"
#include "run/process/multi_process.hpp"
#include "measure/sampling.hpp"
#include "sweep/sizes.hpp"
#include "text/wrap.hpp"

namespace arbench {

void print_banner(std::ostream& o, const RunConfig& cfg, Backend b, const FabricCache& fabrics,
                  const std::string& links_source, const std::string& device_state, const SweepCounts& n,
                  const World& world, const std::vector<std::string>& symm_mem,
                  const std::vector<std::string>& nccl_libraries, const std::string& sol_source) {
  o << "arbench " << ARBENCH_VERSION_STRING << " | backend " << backend_name(b)
    << (b == Backend::host ? " (CPU threads; timings are CPU timings, not GPU)" : "") << "\n";
  if (world.multi_process())
    o << "  launch: " << launch_text(launch_info(world)) << " by " << world.layout().launcher
      << ", one rank per process\n";
  for (const std::string& f : fabrics.created()) o << "  fabric: " << f << "\n";
  for (const std::string& line : nccl_libraries) o << fit_line("  NCCL library " + line, 4);
  for (const std::string& line : symm_mem) o << fit_line("  " + line, 4);
  if (b == Backend::cuda) o << "  links: " << links_source << "\n";
  if (!sol_source.empty()) o << fit_line("  floor (speed of light per schedule): " + sol_source, 4);
  std::string dts;
  for (DType t : cfg.dtypes) dts += (dts.empty() ? "" : ",") + std::string(dtype_name(t));
  o << "  sweep: gpus " << join_ints(cfg.gpus);
  for (Family f : cfg.families) {  // the shape axis of each family swept
    if (f == Family::allreduce)
      o << " | sizes " << format_size(*cfg.min_bytes) << ".." << format_size(*cfg.max_bytes) << " x" << cfg.step_factor;
    else
      o << " | tokens " << join_ints(cfg.tokens) << " x hidden " << cfg.hidden.value_or(0);
  }
  o << " | dtype " << dts << "\n  cases: " << n.cases << " to run";
  if (n.filtered > 0) o << " (" << n.filtered << " left out by --benchmark_filter)";
  o << ", " << n.skipped << " skipped" << (n.skipped > 0 ? " (`arbench list` says why)" : "") << "\n"
    << "  per case: " << *cfg.warmup << " warm-up ops, "
    << (adaptive_sampling(cfg) ? std::string() : sampling_text(cfg) + ", ") << *cfg.pipelined_ops
    << " pipelined ops x 5 | cache " << (cfg.cold_cache ? "cold" : "hot") << " | check " << (cfg.check ? "on" : "OFF")
    << "\n";
  if (adaptive_sampling(cfg)) o << "  sampling: " << sampling_text(cfg) << "\n";  // a line of its own: it is long
  o << "  " << device_state << "\n";
  o << "  latency = isolated op, max over ranks; busbw as nccl-tests; pipelined = per op, ops back to back\n"
    << std::flush;
}

void print_footer(std::ostream& o, const std::vector<CaseResult>& results, const std::vector<Skipped>& skipped,
                  const std::string& stopped, std::size_t planned) {
  std::size_t failed = 0;
  for (const auto& r : results) failed += r.ok ? 0 : 1;
  o << "\narbench: " << results.size() << " cases run, " << (results.size() - failed) << " ok, " << failed
    << " failed, " << skipped.size() << " skipped\n";
  if (!stopped.empty())
    o << "  STOPPED: " << stopped << " after " << results.size() << " of " << planned << " cases; "
      << planned - results.size() << " not run\n";
  for (const auto& r : results)
    if (!r.ok) o << "  FAILED " << r.c.name() << ": " << r.reason << "\n";
  // Faster than its floor: never a success (docs/method.md, "The floor of a case").
  for (const auto& r : results)
    if (below_floor(r))
      o << fit_line("  BELOW FLOOR " + r.c.name() + ": " + format_fixed(r.latency_us.median, 2) + " us, floor " +
                        format_fixed(r.sol->sol_us, 2) + " us (" + r.sol->timing + " timing): a timing or traffic pattern "
                        "error, not a success" +
                        (r.sol->timing == "cpu" ? "; on CPU threads also a machine too loaded to measure the hop "
                                                  "(rerun it quiet; docs/speed-of-light.md)"
                                                : ""),
                    4);
  std::map<std::string, int> reasons;
  for (const auto& s : skipped) ++reasons[s.c.variant + ": " + s.reason];
  for (const auto& [why, count] : reasons) o << "  skipped " << count << " x " << why << "\n";
}

namespace {

// A '#' line within the console's width, its continuation lines '#' too (indented by `indent`).
std::string comment_line(const std::string& line, std::size_t indent) {
  std::string out = fit_line(line, indent);
  const std::string from = "\n" + std::string(indent, ' '), to = "\n#" + std::string(indent - 1, ' ');
  for (std::size_t at = out.find(from); at != std::string::npos && at + 1 < out.size(); at = out.find(from, at + 1))
    out.replace(at, from.size(), to);
  return out;
}

}  // namespace

void print_catalogue(std::ostream& o, const Registry& reg, Backend b) {
  o << "# variants (--variants takes names or globs; [configurations] run only when named in full):\n";
  const auto entries = reg.catalogue(b);
  std::size_t name_width = 18;  // the longest name and two spaces: a name never runs into its summary
  for (const auto& v : entries) name_width = std::max(name_width, v.name.size());
  name_width += 2;
  for (const auto& v : entries) {
    std::ostringstream line;
    line << "#   " << std::left << std::setw(18) << family_name(v.family) << std::setw(int(name_width)) << v.name
         << v.summary;
    if (!v.unavailable.empty()) line << "  [not on " << backend_name(b) << ": " << v.unavailable << "]";
    o << comment_line(line.str(), 4 + 18 + name_width);  // continuation lines under the summary
  }
}

void print_nccl_libraries(std::ostream& o, const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  o << "# NCCL libraries (--nccl-lib), each with its own communicators and variants:\n";
  for (const std::string& line : lines) o << comment_line("#   " + line, 6);
}

void print_skipped_cases(std::ostream& o, const std::vector<Skipped>& skipped) {
  // One case a line, as `list` promises; the reasons, which repeat, once each at the end.
  std::vector<std::string> reasons;
  for (const auto& s : skipped) {
    auto it = std::find(reasons.begin(), reasons.end(), s.reason);
    if (it == reasons.end()) it = reasons.insert(reasons.end(), s.reason);
    o << s.c.name() << "  # skipped [" << (it - reasons.begin() + 1) << "]\n";
  }
  for (std::size_t i = 0; i < reasons.size(); ++i)
    o << comment_line("# skipped [" + std::to_string(i + 1) + "]: " + reasons[i], 4);
}

}  // namespace arbench
