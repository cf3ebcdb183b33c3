// Machine identity and software stack of a result's provenance; see machine_stack.hpp.
#include "results/machine_stack.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "results/provenance.hpp"

namespace arbench {
namespace {

using nlohmann::json;

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The GPUs' PCIe relations (PIX, PXB, PHB, NODE, SYS ...), one row per GPU: "X,PIX;PIX,X".
// Link widths and clocks are left out on purpose: a downtrained link is device state, judged
// per case, not another machine.
std::string pcie_of(const json& prov) {
  const auto t = prov.find("topology");
  if (t == prov.end() || !t->is_object()) return {};
  const auto inner = t->find("topology");
  if (inner == t->end() || !inner->is_object() || !inner->contains("relations")) return {};
  const json& m = (*inner)["relations"].value("matrix", json::array());
  if (!m.is_array() || m.empty()) return {};
  std::string s;
  for (const json& row : m) {
    if (!s.empty()) s += ";";
    std::string r;
    if (row.is_array())
      for (const json& cell : row) r += (r.empty() ? "" : ",") + text_of(cell);
    s += r;
  }
  return s;
}

}  // namespace

bool is_platform_stack_key(const std::string& key) {
  return key == "driver" || key == "cuda_runtime" || key == "nccl_version" || key == "nccl_library";
}

std::string stack_key_label(const std::string& key) {
  if (key == "cuda_runtime") return "CUDA runtime";
  if (key == "nccl_version") return "NCCL";
  if (key == "nccl_library") return "NCCL library";
  if (key == "arbench_version") return "arbench";
  if (key == "arbench_revision") return "arbench revision";
  if (key == "peers") return "peers";
  return key;
}

FieldMap machine_fields_of(const json& prov) {
  FieldMap f;
  if (!prov.is_object()) return f;
  if (const auto m = prov.find("machine"); m != prov.end() && m->is_object() && m->contains("fields") &&
                                           (*m)["fields"].is_object()) {
    for (const auto& [k, v] : (*m)["fields"].items()) f[k] = text_of(v);
    return f;
  }
  // An old result: its fingerprint hashed hardware and stack together; keep the hardware.
  if (const auto ff = prov.find("fingerprint_fields"); ff != prov.end() && ff->is_object())
    for (const auto& [k, v] : ff->items())
      if (std::find(stack_keys().begin(), stack_keys().end(), k) == stack_keys().end()) f[k] = text_of(v);
  if (f.empty()) return f;  // no fingerprint at all (plain Google Benchmark JSON): no machine
  if (const std::string pcie = pcie_of(prov); !pcie.empty()) f["pcie"] = pcie;
  return f;
}

std::string machine_id(const FieldMap& fields) {
  if (fields.empty()) return {};
  std::string text;
  for (const auto& [k, v] : fields) text += k + "=" + v + "\n";
  return fnv1a_hex(text);
}

FieldMap stack_of(const json& prov) {
  FieldMap s;
  if (!prov.is_object()) return s;
  const auto st = prov.find("stack");
  const json& from = st != prov.end() && st->is_object() ? *st : prov;
  for (const std::string& k : stack_keys())
    if (const auto it = from.find(k); it != from.end() && !it->is_null()) s[k] = text_of(*it);
  return s;
}

void add_machine_and_stack(json& prov) {
  prov.erase("machine");  // derive from the fingerprint fields, the topology and the top-level
  prov.erase("stack");    // versions, never from a stale copy
  const FieldMap fields = machine_fields_of(prov);
  prov["machine"] = {{"id", machine_id(fields)}, {"fields", fields}};
  prov["stack"] = stack_of(prov);
}

std::vector<StackChange> stack_changes(const FieldMap& base, const FieldMap& next) {
  std::vector<StackChange> out;
  for (const std::string& k : stack_keys()) {
    const auto b = base.find(k), n = next.find(k);
    if (b == base.end() || n == next.end() || b->second == n->second) continue;
    out.push_back({k, b->second, n->second, is_platform_stack_key(k)});
  }
  return out;
}

std::string stack_changes_text(const std::vector<StackChange>& changes) {
  std::string s;
  for (const StackChange& c : changes)
    s += (s.empty() ? "" : ", ") + stack_key_label(c.key) + " " + (c.base_value.empty() ? "(none)" : c.base_value) +
         " \u2192 " + (c.new_value.empty() ? "(none)" : c.new_value);
  return s;
}

}  // namespace arbench
