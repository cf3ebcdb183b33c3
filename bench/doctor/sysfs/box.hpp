// Small reads of the box below a root folder (sysfs, /proc), shared by the checks: a file's text,
// the kernel command line, a module parameter, the GPUs' labels and the bridges' roles.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "topo/topology.hpp"

namespace arbench::doctor {

// The file's text without surrounding blanks; nullopt when it cannot be read or is empty.
std::optional<std::string> read_text(const std::filesystem::path& file);

// <root>/sys/bus/pci/devices/<bdf>.
std::filesystem::path device_dir(const std::filesystem::path& root, const std::string& bdf);

// <root>/proc/cmdline as key -> value ("iommu" -> "pt"; a bare word maps to ""); nullopt when unreadable.
std::optional<std::map<std::string, std::string>> kernel_cmdline(const std::filesystem::path& root);

// <root>/sys/module/<module>/parameters/<name>.
std::optional<std::string> module_parameter(const std::filesystem::path& root, const std::string& module,
                                            const std::string& name);

// "GPU<i>" for topo.gpus[i] (bus order, as nvidia-smi numbers them).
std::string gpu_label(int i);

// "root port", "switch upstream port" or "switch downstream port" of a bridge on the GPUs' paths,
// and the GPUs below it ("GPU0, GPU1").
std::string bridge_role(const topo::Topology& t, const std::string& bdf);
std::string gpus_below(const topo::Topology& t, const std::string& bdf);

// Whether the IOMMU is on: any group below <root>/sys/kernel/iommu_groups.
bool iommu_on(const std::filesystem::path& root);

// One GPU's IOMMU domain as sysfs shows it: whether the IOMMU is on, the GPU's group (its
// iommu_group link) and that group's `type` ("identity", "DMA", "DMA-FQ"; kernels before 5.11
// lack the file).
struct GpuIommu {
  bool on = false;
  std::optional<std::string> group, type;
};
GpuIommu read_gpu_iommu(const std::filesystem::path& root, const std::string& bdf);

// "256 MiB", "96 GiB".
std::string bytes_text(unsigned long long bytes);

}  // namespace arbench::doctor
