// Reads the NVIDIA GPUs and the PCIe bridges above them from Linux sysfs under a root folder.
// Layout relied on (kernel ABI, Documentation/ABI/testing/sysfs-bus-pci):
//   <root>/sys/bus/pci/devices/<bdf> -> ../../../devices/pci<dom>:<bus>/<bdf>/.../<bdf>
//   each device folder: vendor, device, class, numa_node, {current,max}_link_{speed,width}.
// The resolved link path is the PCIe tree: host bridge first, then root port, switch ports,
// and the device last. Anything unreadable becomes "unknown" or a warning; nothing throws.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>

#include "topo/topology.hpp"

namespace arbench::topo {
namespace fs = std::filesystem;

namespace {

constexpr const char* kNvidiaVendor = "0x10de";

std::optional<std::string> read_trimmed(const fs::path& file) { return read_sysfs_text(file); }

std::optional<int> read_int(const fs::path& file) {
  auto s = read_trimmed(file);
  if (!s) return std::nullopt;
  int v = 0;
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || end != s->data() + s->size()) return std::nullopt;
  return v;
}

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c); });
}

// "pci0000:40" (also "pci10000:e0" behind Intel VMD): a PCIe host bridge / root complex.
bool is_host_bridge(const std::string& name) {
  if (name.rfind("pci", 0) != 0) return false;
  auto colon = name.find(':', 3);
  if (colon == std::string::npos) return false;
  std::string_view dom(name.data() + 3, colon - 3), bus(name.data() + colon + 1, name.size() - colon - 1);
  return dom.size() >= 4 && is_hex(dom) && bus.size() == 2 && is_hex(bus);
}

LinkState read_link_side(const fs::path& dev, const char* prefix) {
  LinkState s;
  if (auto text = read_trimmed(dev / (std::string(prefix) + "_link_speed"))) s.speed_gts = parse_link_speed(*text);
  auto w = read_int(dev / (std::string(prefix) + "_link_width"));
  if (w && *w > 0) s.width = w;  // 0 means the link is down: no width to report
  return s;
}

PcieLink read_link(const fs::path& dev) { return {read_link_side(dev, "current"), read_link_side(dev, "max")}; }

bool is_gpu_class(const std::string& cls) {
  // 24-bit class code: 0x0300xx VGA controller, 0x0302xx 3D controller (data-center GPUs).
  return cls.rfind("0x0300", 0) == 0 || cls.rfind("0x0302", 0) == 0;
}

// A path as the user would see it on the real machine: "/sys/..." below the sysfs root.
std::string shown(const fs::path& p, const fs::path& root) {
  fs::path rel = p.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return p.string();
  std::string out = "/";  // not "/" + rel.string(): GCC 12 -Wrestrict false positive
  return out += rel.string();
}

// Places one GPU: resolves its link and splits the device path into host bridge + bridges.
// Returns a reason when it cannot.
std::optional<std::string> place_gpu(const fs::path& entry, const fs::path& root, GpuInfo& gpu,
                                     Topology& topo) {
  const fs::path devices_root = root / "sys/devices";
  auto show = [&root](const fs::path& p) { return shown(p, root); };
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(entry, ec)))
    return "sysfs entry " + show(entry) + " is not a link into sys/devices, so its place in the "
           "PCIe tree is unknown";
  fs::path real = fs::canonical(entry, ec);
  if (ec) return "cannot resolve " + show(entry) + ": " + ec.message();
  fs::path rel = real.lexically_relative(devices_root);
  if (rel.empty() || *rel.begin() == "..")
    return "device path " + show(real) + " is outside /sys/devices";
  std::vector<std::string> parts;
  for (const auto& p : rel) parts.push_back(p.string());
  auto hb = std::find_if(parts.rbegin(), parts.rend(), is_host_bridge);
  if (hb == parts.rend())
    return "device path " + show(real) + " has no PCI host bridge (pciDDDD:BB); a virtual "
           "machine or a hypervisor bus hides the PCIe tree";
  auto first = hb.base();  // element after the host bridge
  gpu.path.host_bridge = *(hb.base() - 1);
  fs::path walk = devices_root;
  for (auto it = parts.begin(); it != first; ++it) walk /= *it;
  for (auto it = first; it != parts.end(); ++it) {
    walk /= *it;
    auto bdf = normalize_bus_id(*it);
    if (!bdf) return "device path " + show(real) + " holds a non-PCI element '" + *it + "'";
    if (it + 1 == parts.end()) break;  // the GPU itself
    gpu.path.bridges.push_back(*bdf);
    if (!topo.bridges.count(*bdf)) topo.bridges[*bdf] = BridgeInfo{read_link(walk), read_int(walk / "numa_node")};
  }
  if (normalize_bus_id(parts.back()) != gpu.bus_id)
    topo.warnings.push_back(show(entry) + " resolves to " + show(real) + ", another address");
  return std::nullopt;
}

}  // namespace

std::optional<std::string> read_sysfs_text(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  if (s.empty()) return std::nullopt;
  return s;
}

std::optional<int> LinkState::generation() const {
  return speed_gts ? pcie_generation(*speed_gts) : std::nullopt;
}

std::optional<double> parse_link_speed(const std::string& text) {
  double v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  while (b != e && std::isspace(static_cast<unsigned char>(*b))) ++b;
  auto [end, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || end == b || v <= 0) return std::nullopt;
  return v;
}

std::optional<int> pcie_generation(double gts) {
  constexpr double kSpeeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0};
  for (int i = 0; i < 7; ++i)
    if (gts > kSpeeds[i] * 0.95 && gts < kSpeeds[i] * 1.05) return i + 1;
  return std::nullopt;
}

std::optional<std::string> normalize_bus_id(const std::string& text) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string dom = "0", rest = s;
  auto c1 = s.find(':'), c2 = s.rfind(':');
  if (c1 == std::string::npos) return std::nullopt;
  if (c1 != c2) {
    dom = s.substr(0, c1);
    rest = s.substr(c1 + 1);
  }
  auto colon = rest.find(':'), dot = rest.find('.');
  if (colon == std::string::npos || dot == std::string::npos || dot < colon) return std::nullopt;
  std::string bus = rest.substr(0, colon), dev = rest.substr(colon + 1, dot - colon - 1),
              fn = rest.substr(dot + 1);
  if (!is_hex(dom) || dom.size() > 8 || !is_hex(bus) || bus.size() > 2 || !is_hex(dev) || dev.size() > 2 ||
      fn.size() != 1 || !is_hex(fn))
    return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lx:%02lx:%02lx.%lx", std::stoul(dom, nullptr, 16), std::stoul(bus, nullptr, 16),
                std::stoul(dev, nullptr, 16), std::stoul(fn, nullptr, 16));
  return std::string(buf);
}

int Topology::find_gpu(const std::string& bus_id) const {
  auto want = normalize_bus_id(bus_id);
  if (!want) return -1;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    if (gpus[i].bus_id == *want) return static_cast<int>(i);
  return -1;
}

Topology read_sysfs_topology(const fs::path& root) {
  Topology topo;
  topo.sysfs_root = root.string();
  std::error_code ec;
  fs::path canon_root = fs::canonical(root, ec);
  if (ec) {
    topo.warnings.push_back("sysfs root " + root.string() + " cannot be opened: " + ec.message());
    return topo;
  }
  fs::path list = canon_root / "sys/bus/pci/devices";
  fs::directory_iterator it(list, ec);
  if (ec) {
    topo.warnings.push_back("cannot list " + list.string() + ": " + ec.message() +
                            " (not Linux, or /sys not mounted?)");
    return topo;
  }
  std::vector<fs::path> entries;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& entry : entries) {
    auto bdf = normalize_bus_id(entry.filename().string());
    if (!bdf) continue;
    auto vendor = read_trimmed(entry / "vendor");
    if (!vendor) {
      if (!fs::exists(entry, ec))
        topo.warnings.push_back(shown(entry, canon_root) + ": link target missing; device skipped");
      continue;
    }
    if (*vendor != kNvidiaVendor) continue;
    GpuInfo gpu;
    gpu.bus_id = *bdf;
    gpu.class_code = read_trimmed(entry / "class");
    if (!gpu.class_code) {
      topo.warnings.push_back("NVIDIA device " + *bdf + ": class unreadable, cannot tell a GPU; skipped");
      continue;
    }
    if (!is_gpu_class(*gpu.class_code)) continue;  // audio function, USB-C controller, ...
    gpu.device_id = read_trimmed(entry / "device");
    gpu.path.numa_node = read_int(entry / "numa_node");
    gpu.link = read_link(entry);
    if (auto why = place_gpu(entry, canon_root, gpu, topo)) {
      topo.unplaced.push_back({*bdf, *why});
      continue;
    }
    topo.gpus.push_back(std::move(gpu));
  }
  std::sort(topo.gpus.begin(), topo.gpus.end(), [](const GpuInfo& a, const GpuInfo& b) { return a.bus_id < b.bus_id; });
  return topo;
}

}  // namespace arbench::topo
