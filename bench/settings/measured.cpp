// Merging and indexing the results settings are derived from; see measured.hpp.
#include "settings/measured.hpp"

#include <algorithm>
#include <set>

#include "arbench/core/dtype.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/core/nccl_library_name.hpp"
#include "measure/nccl/nccl_symm_kernels.hpp"

namespace arbench {

const ResultCase* Measured::find(const Grid& g, int world, std::uint64_t size, const std::string& variant) const {
  const auto w = g.find(world);
  if (w == g.end()) return nullptr;
  const auto s = w->second.find(size);
  if (s == w->second.end()) return nullptr;
  const auto v = s->second.find(variant);
  return v == s->second.end() ? nullptr : v->second;
}

std::vector<int> Measured::worlds() const {
  std::set<int> w;
  for (const auto& [world, _] : allreduce) w.insert(world);
  for (const auto& [world, _] : fused) w.insert(world);
  return {w.begin(), w.end()};
}

std::uint64_t Measured::min_bytes() const {
  std::uint64_t m = 0;
  for (const auto& [_, sizes] : allreduce)
    if (!sizes.empty() && (m == 0 || sizes.begin()->first < m)) m = sizes.begin()->first;
  return m == 0 ? 1024 : m;
}

std::uint64_t Measured::max_bytes() const {
  std::uint64_t m = 0;
  for (const auto& [_, sizes] : allreduce)
    if (!sizes.empty() && sizes.rbegin()->first > m) m = sizes.rbegin()->first;
  return m == 0 ? std::uint64_t(64) << 20 : m;
}

std::unique_ptr<Measured> load_measured(const std::vector<std::string>& paths, const std::string& dtype,
                                        std::optional<int> hidden) {
  const std::optional<DType> dt = parse_dtype(dtype);
  if (!dt) throw UsageError("--dtype " + dtype + ": not a dtype (bf16, fp16, fp32)");
  auto m = std::make_unique<Measured>();
  m->paths = paths;
  m->dtype = dtype;
  m->dtype_bytes = int(dtype_size(*dt));

  // Merge: one machine, later files replace a case of the same name.
  std::map<std::string, std::size_t> by_name;
  for (const std::string& path : paths) {
    ResultFile r = load_result_file(path);  // UsageError names the file
    if (!r.is_arbench)
      throw UsageError(path + ": plain Google Benchmark JSON has no provenance (machine, NCCL version); "
                              "settings need a result written by `arbench run --backend cuda`");
    if (r.backend != "cuda")
      throw UsageError(path + ": a result of the " + (r.backend.empty() ? std::string("unknown") : r.backend) +
                       " backend; engine settings need real GPUs driven by NCCL (`arbench run --backend cuda`): "
                       "CPU timings and virtual ranks say nothing about an engine");
    if (m->facts.path.empty()) {
      m->facts = r;
      m->facts.cases.clear();
    } else if (!r.fingerprint.empty() && !m->facts.fingerprint.empty() && r.fingerprint != m->facts.fingerprint) {
      throw UsageError(path + ": measured on another machine (fingerprint " + r.fingerprint + ", " +
                       m->facts.path + " has " + m->facts.fingerprint + "); give results of one machine");
    }
    // The NCCL libraries measured beside the default (--nccl-lib), of every file: one label, one library.
    for (const ResultNcclLibrary& lib : r.nccl_libraries) {
      auto& have = m->facts.nccl_libraries;
      const auto same = std::find_if(have.begin(), have.end(), [&](const auto& h) { return h.label == lib.label; });
      if (same == have.end())
        have.push_back(lib);
      else if (same->version != lib.version)
        throw UsageError(path + ": its NCCL library " + lib.variant + " is NCCL " + lib.version + " (" + lib.path +
                         "), another file's is NCCL " + same->version + " (" + same->path +
                         "): one name, two libraries; give results that name each library once");
    }
    for (ResultCase& c : r.cases) {
      const auto [it, fresh] = by_name.emplace(c.name, m->cases_.size());
      if (fresh) {
        m->cases_.push_back(std::move(c));
      } else {
        m->ignored.push_back(c.name + ": measured again in " + path + "; that measurement is used");
        m->cases_[it->second] = std::move(c);
      }
    }
  }

  // The fused family's hidden size.
  std::set<int> hiddens;
  for (const ResultCase& c : m->cases_)
    if (c.family == "allreduce_rmsnorm" && c.dtype == dtype && c.ok) hiddens.insert(c.hidden);
  if (hidden) {
    if (!hiddens.empty() && !hiddens.count(*hidden)) {
      std::string have;
      for (int h : hiddens) have += (have.empty() ? "" : ", ") + std::to_string(h);
      throw UsageError("--hidden " + std::to_string(*hidden) + ": the fused family was measured at hidden " + have +
                       "; give one of those, or measure yours (arbench run --family allreduce_rmsnorm --hidden " +
                       std::to_string(*hidden) + ")");
    }
    m->hidden = hiddens.count(*hidden) ? *hidden : 0;
  } else if (hiddens.size() > 1) {
    std::string have;
    for (int h : hiddens) have += (have.empty() ? "" : ", ") + std::to_string(h);
    throw UsageError("the fused family was measured at several hidden sizes (" + have +
                     "); pick your model's with --hidden or --model");
  } else if (hiddens.size() == 1) {
    m->hidden = *hiddens.begin();
  }

  // `nccl-symm` without NCCL's symmetric kernels: labelled by the run, or (results written before
  // the label) known from the result's NCCL version and links.
  // `nccl-symm@<label>` (another NCCL library of the run): by that library's version.
  auto symm_kernels_off = [&](const ResultCase& c) {
    const LibraryVariant lv = split_library(c.variant);
    if (lv.variant != "nccl-symm") return false;
    if (!c.nccl_symm_kernels_off.empty()) return true;
    std::string version = m->facts.nccl_version;
    for (const ResultNcclLibrary& lib : m->facts.nccl_libraries)
      if (!lv.library.empty() && lib.label == lv.library) version = lib.version;
    const auto nv = m->facts.all_nvlink.find(c.world);
    return !nccl_symm_kernels_off(version, nv != m->facts.all_nvlink.end() && nv->second).empty();
  };
  std::map<std::string, int> left_out;  // why -> count
  for (const ResultCase& c : m->cases_) {
    const char* why = c.family.empty() || c.variant.empty() ? "not an arbench case name"
                      : !c.ok || c.samples_us.empty()       ? "failed"
                      : c.dtype != dtype                     ? "another dtype"
                      : c.in_place                           ? "in place (engines all-reduce out of place)"
                      : c.cold_cache                         ? "cold cache (engines find their input in cache)"
                      : c.skew_us > 0                        ? "an arrival skew (a what-if)"
                      : !c.nccl_channels_clamped.empty()     ? "NCCL ran fewer channels than the name asks (clamped)"
                      : symm_kernels_off(c)                  ? "nccl-symm without NCCL's symmetric kernels (NCCL 2.29.2+ off NVLink)"
                      : c.family == "allreduce_rmsnorm" && c.hidden != m->hidden ? "another hidden size"
                                                                                 : nullptr;
    if (why != nullptr) {
      ++left_out[why];
      continue;
    }
    if (c.family == "allreduce")
      m->allreduce[c.world][c.bytes][c.variant] = &c;
    else if (c.family == "allreduce_rmsnorm")
      m->fused[c.world][std::uint64_t(c.tokens)][c.variant] = &c;
  }
  for (const auto& [why, n] : left_out) m->ignored.push_back(std::to_string(n) + " cases left out: " + why);
  if (m->allreduce.empty() && m->fused.empty())
    throw UsageError(paths.front() + (paths.size() > 1 ? " (and the others)" : "") + ": no successful " + dtype +
                     " case to derive settings from; run `arbench run --backend cuda` first");
  return m;
}

std::string size_arg(std::uint64_t bytes) {
  if (bytes >= (1u << 30) && bytes % (1u << 30) == 0) return std::to_string(bytes >> 30) + "G";
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

std::string allreduce_run_line(const Measured& m, int world, const std::string& variants, const std::string& extra,
                               const std::string& out) {
  return "arbench run --backend cuda --gpus " + std::to_string(world) + " --family allreduce --dtype " + m.dtype +
         " --variants '" + variants + "' -b " + size_arg(m.min_bytes()) + " -e " + size_arg(m.max_bytes()) +
         (extra.empty() ? "" : " " + extra) + " --out " + out;
}

std::string fused_run_line(const Measured& m, int world, const std::string& out) {
  return "arbench run --backend cuda --gpus " + std::to_string(world) + " --family allreduce_rmsnorm --dtype " +
         m.dtype + " --hidden " + std::to_string(m.hidden > 0 ? m.hidden : 8192) +
         " --tokens 1,2,4,8,16,32,64,128,256,512,1024,2048 --out " + out;
}

}  // namespace arbench
