// The known-bad catalogue's data and its matching against what is installed; see known_bad.hpp.
// Read in 2026 with a search over GitHub issue threads: the title, description and comments the
// search returned; threads whose cause was not established in what was read are entries with
// verified = false, which never raise the verdict.
#include "doctor/known_bad.hpp"

#include <sstream>

#include "doctor/sysfs/box.hpp"
#include "doctor/checks.hpp"

namespace arbench::doctor {

const std::vector<KnownBad>& known_bad() {
  static const std::vector<KnownBad> k = {
      {.id = "nccl.ima_512k", .package = "nccl", .first = "2.26.2", .last = "2.26.2",
       .hardware = "2x RTX PRO 6000 Blackwell Workstation Edition, PCIe only (NODE), driver 580.173.02",
       .what = "all-reduce of 512 KiB and more fails with an illegal memory access (the process dies)",
       .fix = "use NCCL 2.31.2 or newer in the engine (the reporter's working release)",
       .verdict = Verdict::may_hang,
       .source = {"NVIDIA/nccl", "issue #2418 (closed)",
                  "description: nccl-tests all_reduce_perf fails from 524288 bytes with 2.26.2, passes to 512 MiB with "
                  "2.31.2"},
       .verified = true,
       .caveat = "only 2.26.2 (failing) and 2.31.2 (working) were tested: the releases between are not known either way"},
      {.id = "nccl.p2p_hang_rtx_pro_6000", .package = "nccl", .first = "2.26.5", .last = "2.29.2",
       .only = "2.26.5,2.27.7,2.29.2",
       .hardware = "2x RTX PRO 6000 Blackwell, PCIe, Fedora 43",
       .what = "all-reduce hangs with P2P on (the releases tested); NCCL_P2P_DISABLE=1 avoids it",
       .fix = "check acs and iommu first (the same symptom as ACS redirection); NCCL_P2P_DISABLE=1 until then",
       .verdict = Verdict::may_hang,
       .source = {"NVIDIA/nccl", "issue #1999 (closed)", "description only: the resolution was not read"},
       .verified = false,
       .caveat = "the cause is not established in what was read; it may be the box (ACS, IOMMU), not the releases"},
  };
  return k;
}

bool affects(const KnownBad& k, const Version& v) {
  if (!k.only.empty()) {
    std::istringstream list{std::string(k.only)};
    for (std::string r; std::getline(list, r, ',');)
      if (parse_version(r) == v) return true;
    return false;
  }
  const auto first = parse_version(std::string(k.first)), last = parse_version(std::string(k.last));
  return (!first || *first <= v) && (!last || v <= *last);
}

std::string releases(const KnownBad& k) {
  if (!k.only.empty()) {
    std::string out(k.only);
    for (std::size_t at = out.find(','); at != std::string::npos; at = out.find(',', at + 2)) out.replace(at, 1, ", ");
    return out;
  }
  if (k.first == k.last) return std::string(k.first);
  return std::string(k.first) + " to " + std::string(k.last);
}

std::string known_bad_markdown() {
  std::ostringstream os;
  os << "| package | releases | seen on | what happens | fix | source | verified |\n|---|---|---|---|---|---|---|\n";
  for (const KnownBad& k : known_bad())
    os << "| " << k.package << " | " << releases(k) << " | " << k.hardware << " | " << k.what << " | " << k.fix << " | "
       << k.source.repo << " " << k.source.ref << ": " << k.source.read << " | "
       << (k.verified ? "yes" : "no: " + std::string(k.caveat)) << (k.verified && !k.caveat.empty() ? " (" + std::string(k.caveat) + ")" : "")
       << " |\n";
  return os.str();
}

Check check_known_bad(const Inputs& in) {
  Check c("known_bad", "Known-bad releases",
          "Some releases of NCCL, the driver and the engines hang or crash on PCIe boxes; each entry names its source.");
  struct Installed {
    std::string package, what;
    std::optional<Version> version;
    std::string unknown;  // why the version is not known
    std::string shown;    // as the package writes it ("580.95.05"), when it differs from Version::text
  };
  std::vector<Installed> installed = {
      {"nccl", "the engine's NCCL", in.stack.nccl, "give --nccl X.Y.Z or --python PATH (the engine's interpreter)", ""},
      {"nccl", "the NCCL arbench loads", parse_version(in.arbench_nccl), "none loaded (NCCL 2.28 or newer not found)", ""}};
  std::optional<std::string> driver = read_text(in.root / "sys/module/nvidia/version");
  if (!driver) driver = in.nvml.driver_version;
  installed.push_back({"driver", "the NVIDIA driver", driver ? parse_version(*driver) : std::nullopt, "no driver loaded",
                       driver.value_or("")});
  for (const auto& [name, v] : in.stack.engines) installed.push_back({name, name, v, "", ""});
  c.data["matches"] = nlohmann::json::array();
  int matched = 0;
  for (const Installed& i : installed) {
    if (!i.version) {
      c.add(i.what, Verdict::unknown, "version not known: " + i.unknown);
      continue;
    }
    bool any = false;
    for (const KnownBad& k : known_bad()) {
      if (k.package != i.package || !affects(k, *i.version)) continue;
      any = true;
      ++matched;
      c.add(i.what + " " + (i.shown.empty() ? i.version->text() : i.shown), k.verified ? k.verdict : Verdict::unknown,
            std::string(k.what) + " (seen on " + std::string(k.hardware) + "; " + std::string(k.source.repo) + " " +
                std::string(k.source.ref) + (k.verified ? "" : "; unverified: " + std::string(k.caveat)) + ")",
            std::string(k.fix));
      c.data["matches"].push_back({{"id", k.id}, {"package", i.package}, {"version", i.version->text()},
                                   {"verified", k.verified}});
    }
    if (!any) c.add(i.what + " " + (i.shown.empty() ? i.version->text() : i.shown), Verdict::ok, "no known-bad entry for this release");
  }
  c.summary = std::to_string(matched) + " known-bad entries match (" + std::to_string(known_bad().size()) +
              " in the catalogue)";
  return c;
}

}  // namespace arbench::doctor
