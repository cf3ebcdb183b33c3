// Every check in order, the probe's check, and the "may hang" lines `arbench run` starts with.
#include "doctor/sysfs/box.hpp"
#include "doctor/checks.hpp"

namespace arbench::doctor {

Inputs host_inputs(const std::filesystem::path& root) {
  Inputs in;
  in.root = root;
  in.topo = topo::read_sysfs_topology(root);
  in.nvml.why = "not asked";
  in.functional.why = "not asked";
  in.probe_skipped = "not asked";
  return in;
}

Check check_collapse(const Inputs& in) {
  Check c("collapse", "Posted-write collapse",
          "On some platforms posted writes collapse when several GPUs write across root ports at once while reads keep "
          "their speed: a push all-reduce then crawls where a pull one does not.");
  if (!in.probe) {
    c.add("probe", Verdict::unknown, "not run: " + in.probe_skipped);
    c.summary = c.items.back().read;
    c.data = {{"pull_beats_push", nullptr}};
    return c;
  }
  const CollapseVerdict v = judge_collapse(*in.probe);
  c.add(std::to_string(in.probe->gpus) + " GPUs", v.verdict, v.summary,
        v.pull_beats_push ? "prefer pull variants (oneshot-pull over oneshot-push): `arbench doctor --out FILE`, then "
                            "`arbench run --doctor FILE` records it, and tune and settings prefer pull"
                          : "");
  for (const std::string& n : in.probe->notes) c.add("note", Verdict::ok, n);
  c.summary = v.summary;
  c.data = collapse_to_json(*in.probe, v);
  return c;
}

bool fewer_than_two_gpus(Check& c, const Inputs& in) {
  const std::size_t n = in.topo.gpus.size();
  if (n >= 2) return false;
  c.add("GPUs", n == 0 ? Verdict::unknown : Verdict::ok,
        (n == 0 ? "no NVIDIA GPU under " + (in.root / "sys/bus/pci/devices").string() : std::string("one GPU")) +
            ": nothing between GPUs to check");
  c.summary = c.items.back().read;
  return true;
}

std::vector<Check> run_checks(const Inputs& in) {
  std::vector<Check> out;
  out.push_back(check_acs(in));
  bool redirects = false;
  for (const Item& i : out.back().items) redirects = redirects || i.verdict == Verdict::may_hang;
  out.push_back(check_iommu(in, redirects));
  out.push_back(check_p2p(in));
  out.push_back(check_links(in));
  out.push_back(check_bar1(in));
  out.push_back(check_driver(in));
  out.push_back(check_nccl_path(in));
  out.push_back(check_known_bad(in));
  out.push_back(check_collapse(in));
  return out;
}

std::vector<std::string> hang_risks(const std::filesystem::path& root) {
  std::vector<std::string> lines;
  try {
    const Inputs in = host_inputs(root);
    if (in.topo.gpus.size() < 2) return lines;
    const Check acs = check_acs(in);
    bool redirects = false;
    for (const Item& i : acs.items) redirects = redirects || i.verdict == Verdict::may_hang;
    for (const Check& c : {acs, check_iommu(in, redirects)})
      for (const Item& i : c.items)
        if (i.verdict == Verdict::may_hang)
          lines.push_back("may hang (" + c.id + "): " + i.subject + ": " + i.read + "; `arbench doctor` says what to do");
  } catch (const std::exception& e) {
    lines.push_back("the doctor's checks could not read " + root.string() + ": " + e.what());
  }
  return lines;
}

}  // namespace arbench::doctor
