#include "doctor/sysfs/box.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace arbench::doctor {
namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& file) { return topo::read_sysfs_text(file); }

fs::path device_dir(const fs::path& root, const std::string& bdf) { return root / "sys/bus/pci/devices" / bdf; }

std::optional<std::map<std::string, std::string>> kernel_cmdline(const fs::path& root) {
  std::ifstream in(root / "proc/cmdline");
  if (!in) return std::nullopt;
  std::map<std::string, std::string> out;
  for (std::string word; in >> word;) {
    const std::size_t eq = word.find('=');
    out[word.substr(0, eq)] = eq == std::string::npos ? std::string() : word.substr(eq + 1);
  }
  return out;
}

std::optional<std::string> module_parameter(const fs::path& root, const std::string& module, const std::string& name) {
  return read_text(root / "sys/module" / module / "parameters" / name);
}

std::string gpu_label(int i) { return "GPU" + std::to_string(i); }

std::string bridge_role(const topo::Topology& t, const std::string& bdf) {
  for (const auto& g : t.gpus)
    for (std::size_t k = 0; k < g.path.bridges.size(); ++k)
      if (g.path.bridges[k] == bdf)
        return k == 0 ? "root port" : k % 2 == 1 ? "switch upstream port" : "switch downstream port";
  return "bridge";
}

std::string gpus_below(const topo::Topology& t, const std::string& bdf) {
  std::string out;
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    const auto& b = t.gpus[i].path.bridges;
    if (std::find(b.begin(), b.end(), bdf) != b.end()) out += (out.empty() ? "" : ", ") + gpu_label(int(i));
  }
  return out;
}

bool iommu_on(const fs::path& root) {
  std::error_code ec;
  fs::directory_iterator groups(root / "sys/kernel/iommu_groups", ec);
  return !ec && groups != fs::directory_iterator();
}

GpuIommu read_gpu_iommu(const fs::path& root, const std::string& bdf) {
  GpuIommu g;
  g.on = iommu_on(root);
  std::error_code ec;
  const fs::path link = fs::read_symlink(device_dir(root, bdf) / "iommu_group", ec);
  if (ec) return g;
  g.group = link.filename().string();
  g.type = read_text(root / "sys/kernel/iommu_groups" / *g.group / "type");
  return g;
}

std::string bytes_text(unsigned long long bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  std::ostringstream os;
  os.precision(v < 10 && u > 0 && v != static_cast<unsigned long long>(v) ? 2 : 0);
  os << std::fixed << v << " " << units[u];
  return os.str();
}

}  // namespace arbench::doctor
