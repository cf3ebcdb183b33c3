#include "run/nccl_case_labels.hpp"

#include <cstdlib>

#include "arbench/core/nccl_library_name.hpp"
#include "measure/nccl/nccl_symm_kernels.hpp"

namespace arbench {
namespace {

bool has_setting(const CaseResult& r, const std::string& key) {
  for (const auto& [k, v] : r.settings)
    if (k == key) return true;
  return false;
}

}  // namespace

int asked_nccl_channels() {
  const char* v = std::getenv("ARBENCH_NCCL_TUNER_CHANNELS");
  if (v == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && n > 0 && n <= 1024 ? int(n) : 0;
}

NcclCaseLabels::NcclCaseLabels(int asked_channels, const std::string& log_file) : asked_(asked_channels) {
  if (asked_ > 0) log_ = NcclInitLog::start(log_file);
}

void NcclCaseLabels::set_facts(std::string nccl_version, std::map<int, bool> all_nvlink,
                               std::map<std::string, std::string> library_versions) {
  nccl_version_ = std::move(nccl_version);
  all_nvlink_ = std::move(all_nvlink);
  library_versions_ = std::move(library_versions);
}

void NcclCaseLabels::label(CaseResult& r, std::ostream& warn) {
  if (asked_ > 0) {
    if (log_)
      if (std::vector<int> now = log_->new_coll_channels(warn); !now.empty()) counts_by_world_[r.c.world] = now;
    const auto it = counts_by_world_.find(r.c.world);
    if (it != counts_by_world_.end())
      for (auto& kv : nccl_channel_labels(asked_, it->second)) r.settings.push_back(std::move(kv));
    else
      r.settings.emplace_back("nccl_channels_run",
                              log_ ? "unknown (NCCL logged no channel count)"
                                   : "unknown (NCCL_DEBUG, NCCL_DEBUG_SUBSYS or NCCL_DEBUG_FILE set by the user)");
  }
  // `nccl-symm` of the default library, or `nccl-symm@<label>` of another: that library's version.
  const LibraryVariant lv = split_library(r.c.variant);
  if (lv.variant == "nccl-symm" && !has_setting(r, "nccl_symm_kernels")) {
    const auto nv = all_nvlink_.find(r.c.world);
    const auto lib = library_versions_.find(lv.library);
    const std::string& version = lv.library.empty() || lib == library_versions_.end() ? nccl_version_ : lib->second;
    const std::string off = nccl_symm_kernels_off(version, nv != all_nvlink_.end() && nv->second);
    if (!off.empty()) r.settings.emplace_back("nccl_symm_kernels", "off: " + off);
  }
}

std::string nccl_clamped_label(const CaseResult& r) {
  for (const auto& [k, v] : r.settings)
    if (k == "nccl_channels_clamped") return "CLAMPED: " + v;
  return {};
}

std::vector<std::string> nccl_label_footer(const std::vector<CaseResult>& results) {
  int clamped = 0, symm_off = 0;
  std::string example;
  for (const CaseResult& r : results) {
    for (const auto& [k, v] : r.settings) {
      if (k == "nccl_channels_clamped" && ++clamped == 1) example = r.c.name() + ": " + v;
      if (k == "nccl_symm_kernels" && v.rfind("off", 0) == 0) ++symm_off;
    }
  }
  std::vector<std::string> lines;
  if (clamped > 0)
    lines.push_back(std::to_string(clamped) + " NCCL case(s) asked for more channels than the communicator has and ran "
                    "on fewer (e.g. " + example + "); `arbench settings` leaves them out");
  if (symm_off > 0)
    lines.push_back(std::to_string(symm_off) + " nccl-symm case(s) ran without NCCL's symmetric kernels (NCCL 2.29.2+ "
                    "runs them only on all-NVLink boxes): plain NCCL on symmetric buffers");
  return lines;
}

}  // namespace arbench
