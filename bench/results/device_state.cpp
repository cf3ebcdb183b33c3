// Device state: the abnormal-state rule, its one-line marker, run-to-run differences and the
// JSON form; see device_state.hpp.
#include "results/device_state.hpp"

#include <cmath>
#include <map>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

using nlohmann::json;

std::string gpu(int device) { return "GPU " + std::to_string(device); }

std::string link_text(const std::optional<int>& gen, const std::optional<int>& width) {
  std::string s = gen ? "Gen" + std::to_string(*gen) : std::string();
  if (width) s += (s.empty() ? "x" : " x") + std::to_string(*width);
  return s.empty() ? "unknown" : s;
}

std::string throttle_reasons(std::uint64_t bits) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {kClockEventSwPowerCap, "SW power cap"},        {kClockEventHwSlowdown, "HW slowdown"},
      {kClockEventSwThermal, "SW thermal slowdown"},  {kClockEventHwThermal, "HW thermal slowdown"},
      {kClockEventHwPowerBrake, "HW power brake"}};
  std::string s;
  for (const auto& [bit, name] : kNames)
    if (bits & bit) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

std::optional<std::string> throttled(const GpuSnapshot& b, const GpuSnapshot& a) {
  std::string why;
  auto grew = [&](const std::optional<std::uint64_t>& x, const std::optional<std::uint64_t>& y,
                  const char* what) {
    if (x && y && *y > *x)
      why += (why.empty() ? "" : ", ") + std::string(what) + " limit held the clocks down for " +
             std::to_string((*y - *x) / 1000000) + " ms";
  };
  grew(b.power_violation_ns, a.power_violation_ns, "power");
  grew(b.thermal_violation_ns, a.thermal_violation_ns, "thermal");
  const std::uint64_t bits = (b.clock_event_reasons.value_or(0) | a.clock_event_reasons.value_or(0)) &
                             kClockEventsThrottling;
  if (bits) why += (why.empty() ? "" : ", ") + throttle_reasons(bits);
  if (why.empty()) return std::nullopt;
  return why;
}

std::optional<std::string> clock_change(const std::optional<unsigned>& b, const std::optional<unsigned>& a,
                                        const char* what) {
  if (!b || !a || *b == 0) return std::nullopt;
  if (std::abs(double(*a) - double(*b)) / double(*b) <= kClockChangeTolerance) return std::nullopt;
  return std::string(what) + " clock " + std::to_string(*b) + " -> " + std::to_string(*a) + " MHz";
}

std::optional<std::string> downtrained(const GpuSnapshot& a) {
  const bool narrow = a.pcie_width && a.pcie_max_width && *a.pcie_width < *a.pcie_max_width;
  const bool busy = !a.pstate || *a.pstate <= 2;
  const bool slow = busy && a.pcie_gen && a.pcie_max_gen && *a.pcie_gen < *a.pcie_max_gen;
  if (!narrow && !slow) return std::nullopt;
  return "link " + link_text(a.pcie_gen, a.pcie_width) + ", max " + link_text(a.pcie_max_gen, a.pcie_max_width);
}

// ---- JSON --------------------------------------------------------------------------------

// Every field of a snapshot with its JSON key, once, for writing and reading alike.
template <class Snapshot, class F>
void each_field(Snapshot& s, F&& f) {
  f("sm_clock_mhz", s.sm_clock_mhz);
  f("mem_clock_mhz", s.mem_clock_mhz);
  f("clock_event_reasons", s.clock_event_reasons);
  f("temperature_c", s.temperature_c);
  f("power_w", s.power_w);
  f("pstate", s.pstate);
  f("pcie_gen", s.pcie_gen);
  f("pcie_width", s.pcie_width);
  f("pcie_max_gen", s.pcie_max_gen);
  f("pcie_max_width", s.pcie_max_width);
  f("other_processes", s.other_processes);
  f("power_violation_ns", s.power_violation_ns);
  f("thermal_violation_ns", s.thermal_violation_ns);
}

json snapshot_json(const GpuSnapshot& s) {
  json j = json::object();
  each_field(s, [&](const char* key, const auto& v) {
    if (v) j[key] = *v;  // unknown stays absent, never 0
  });
  return j;
}

GpuSnapshot snapshot_from(const json& j, const std::string& where) {
  GpuSnapshot s;
  if (!j.is_object()) throw UsageError(where + " is " + j.dump().substr(0, 40) + ", expected an object");
  each_field(s, [&](const char* key, auto& out) {
    using T = typename std::remove_reference_t<decltype(out)>::value_type;
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    if (!it->is_number() || (std::is_unsigned_v<T> && it->is_number_integer() && it->template get<std::int64_t>() < 0))
      throw UsageError(where + "." + key + " is " + it->dump() + ", expected a number");
    out = it->template get<T>();
  });
  return s;
}

}  // namespace

std::string_view device_issue_name(DeviceIssue issue) {
  switch (issue) {
    case DeviceIssue::throttled: return "throttled";
    case DeviceIssue::clocks_changed: return "clocks_changed";
    case DeviceIssue::link_downtrained: return "link_downtrained";
    case DeviceIssue::other_processes: return "other_processes";
  }
  return "?";
}

std::vector<DeviceFinding> assess_device_state(const std::vector<GpuCaseState>& gpus) {
  std::vector<DeviceFinding> out;
  for (const GpuCaseState& g : gpus) {
    if (auto why = throttled(g.before, g.after)) out.push_back({DeviceIssue::throttled, g.device, *why});
    std::string clocks;
    for (auto c : {clock_change(g.before.sm_clock_mhz, g.after.sm_clock_mhz, "SM"),
                   clock_change(g.before.mem_clock_mhz, g.after.mem_clock_mhz, "memory")})
      if (c) clocks += (clocks.empty() ? "" : ", ") + *c;
    if (!clocks.empty()) out.push_back({DeviceIssue::clocks_changed, g.device, clocks});
    if (auto link = downtrained(g.after)) out.push_back({DeviceIssue::link_downtrained, g.device, *link});
    const int others = std::max(g.before.other_processes.value_or(0), g.after.other_processes.value_or(0));
    if (others > 0)
      out.push_back({DeviceIssue::other_processes, g.device,
                     std::to_string(others) + " other process" + (others > 1 ? "es" : "") + " on the GPU"});
  }
  return out;
}

std::string device_marker(const DeviceState& s) {
  std::string m;
  for (const DeviceFinding& f : s.findings) {
    std::string what = f.issue == DeviceIssue::throttled ? "throttled (" + f.detail + ")" : f.detail;
    m += (m.empty() ? "" : "; ") + gpu(f.device) + " " + what;
  }
  return m;
}

std::vector<std::string> device_state_differences(const DeviceState& base, const DeviceState& next) {
  std::vector<std::string> out;
  std::map<int, const GpuCaseState*> in_base;
  for (const GpuCaseState& g : base.gpus) in_base[g.device] = &g;
  auto has = [](const DeviceState& s, int device, DeviceIssue issue) {
    for (const DeviceFinding& f : s.findings)
      if (f.device == device && f.issue == issue) return &f;
    return static_cast<const DeviceFinding*>(nullptr);
  };
  for (const GpuCaseState& n : next.gpus) {
    const auto it = in_base.find(n.device);
    if (it == in_base.end()) continue;
    const GpuSnapshot &b = it->second->after, &a = n.after;
    const std::string who = gpu(n.device) + " ";
    const std::string lb = link_text(b.pcie_gen, b.pcie_width), la = link_text(a.pcie_gen, a.pcie_width);
    if (lb != la && lb != "unknown" && la != "unknown")
      out.push_back(who + "link " + la + " tonight, " + lb + " in the baseline");
    if (auto c = clock_change(b.sm_clock_mhz, a.sm_clock_mhz, "SM"))
      out.push_back(who + "SM clock " + std::to_string(*a.sm_clock_mhz) + " MHz tonight, " +
                    std::to_string(*b.sm_clock_mhz) + " MHz in the baseline");
    if (auto c = clock_change(b.mem_clock_mhz, a.mem_clock_mhz, "memory"))
      out.push_back(who + "memory clock " + std::to_string(*a.mem_clock_mhz) + " MHz tonight, " +
                    std::to_string(*b.mem_clock_mhz) + " MHz in the baseline");
    if (a.temperature_c && b.temperature_c && std::abs(int(*a.temperature_c) - int(*b.temperature_c)) >= 10)
      out.push_back(who + std::to_string(*a.temperature_c) + " C tonight, " + std::to_string(*b.temperature_c) +
                    " C in the baseline");
    for (DeviceIssue issue : {DeviceIssue::throttled, DeviceIssue::other_processes, DeviceIssue::clocks_changed}) {
      const DeviceFinding* fn = has(next, n.device, issue);
      if (fn && !has(base, n.device, issue))
        out.push_back(who + std::string(device_issue_name(issue)) + " tonight (" + fn->detail + "), not in the baseline");
    }
  }
  return out;
}

json device_state_to_json(const DeviceState& s) {
  json gpus = json::array(), findings = json::array();
  for (const GpuCaseState& g : s.gpus)
    gpus.push_back({{"device", g.device}, {"bus_id", g.bus_id}, {"before", snapshot_json(g.before)},
                    {"after", snapshot_json(g.after)}});
  for (const DeviceFinding& f : s.findings)
    findings.push_back({{"issue", device_issue_name(f.issue)}, {"device", f.device}, {"detail", f.detail}});
  return {{"gpus", gpus}, {"abnormal", s.abnormal()}, {"findings", findings}};
}

DeviceState device_state_from_json(const json& j, const std::string& where) {
  DeviceState s;
  if (!j.is_object() || !j.contains("gpus") || !j.at("gpus").is_array())
    throw UsageError(where + " has no \"gpus\" array (expected the object `arbench run` writes)");
  const json& gpus = j.at("gpus");
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::string w = where + ".gpus[" + std::to_string(i) + "]";
    const json& g = gpus[i];
    if (!g.is_object()) throw UsageError(w + " is not an object");
    GpuCaseState c;
    c.device = g.value("device", -1);
    c.bus_id = g.value("bus_id", std::string());
    if (g.contains("before")) c.before = snapshot_from(g.at("before"), w + ".before");
    if (g.contains("after")) c.after = snapshot_from(g.at("after"), w + ".after");
    s.gpus.push_back(std::move(c));
  }
  s.findings = assess_device_state(s.gpus);
  return s;
}

}  // namespace arbench
