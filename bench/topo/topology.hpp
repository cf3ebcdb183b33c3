// The PCIe topology of the NVIDIA GPUs in one box, as read from Linux sysfs.
// Host-only (no CUDA): the reader takes a root folder, so tests run it on fixture trees
// (tests/fixtures/sysfs/*) and `arbench topo --sysfs-root DIR` prints a tree without a GPU.
// Every value that could not be read is an empty optional ("unknown"), never an exception.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace arbench::topo {

// One side (current or maximum) of a PCIe link as the kernel reports it.
struct LinkState {
  std::optional<double> speed_gts;  // GT/s per lane, e.g. 32.0 for Gen5
  std::optional<int> width;         // lanes, e.g. 16
  std::optional<int> generation() const;  // PCIe generation derived from speed_gts
};

struct PcieLink {
  LinkState current;  // drops to Gen1 at idle on many GPUs (power saving): read max too
  LinkState max;
};

// Where a GPU sits: its host bridge (one PCIe root complex, e.g. "pci0000:40") and the
// bridges from the root port down to the GPU's parent (PCI addresses, top first).
struct GpuPath {
  std::string host_bridge;
  std::vector<std::string> bridges;
  std::optional<int> numa_node;  // -1: the kernel knows no NUMA affinity (one node)
};

struct GpuInfo {
  std::string bus_id;                  // normalized "0000:41:00.0"
  std::optional<std::string> device_id;  // PCI device id, e.g. "0x2bb5"
  std::optional<std::string> class_code;
  PcieLink link;
  GpuPath path;
};

// An NVIDIA GPU listed by sysfs whose place in the PCIe tree could not be found.
struct UnplacedGpu {
  std::string bus_id;
  std::string reason;
};

// A bridge on some GPU's path (root port or switch port), with its own link (an x8 switch
// uplink under x16 GPUs shows up here).
struct BridgeInfo {
  PcieLink link;
  std::optional<int> numa_node;
};

struct Topology {
  std::string sysfs_root;
  std::vector<GpuInfo> gpus;  // sorted by bus id (= nvidia-smi / CUDA_DEVICE_ORDER=PCI_BUS_ID)
  std::vector<UnplacedGpu> unplaced;
  std::map<std::string, BridgeInfo> bridges;  // by PCI address
  std::vector<std::string> warnings;          // oddities found while reading

  // Index into gpus of the GPU with this bus id (any spelling), or -1.
  int find_gpu(const std::string& bus_id) const;
};

// Reads <root>/sys/bus/pci/devices. A missing folder gives an empty topology with a warning.
Topology read_sysfs_topology(const std::filesystem::path& root = "/");

// "00000000:41:00.0", "0000:41:00.0", "41:00.0" (any case) -> "0000:41:00.0"; nullopt if not
// a PCI address.
std::optional<std::string> normalize_bus_id(const std::string& text);

// A sysfs (or /proc) file's text without surrounding blanks; nullopt when it cannot be read or is
// empty. Never throws.
std::optional<std::string> read_sysfs_text(const std::filesystem::path& file);

// "32.0 GT/s PCIe" -> 32.0; "Unknown" or garbage -> nullopt.
std::optional<double> parse_link_speed(const std::string& text);

// 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6; anything else -> nullopt.
std::optional<int> pcie_generation(double speed_gts);

}  // namespace arbench::topo
