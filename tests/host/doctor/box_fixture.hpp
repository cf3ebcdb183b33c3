// A box built in a temporary folder for the doctor's tests, as Linux lays it out below `/`:
// sys/devices/pci<dom>:<bus>/<bridges...>/<gpu> with vendor, class, link and resource files,
// sys/bus/pci/devices/<bdf> links to them, config files written from the PCI Express Base
// Specification's layout (ConfigBuilder), IOMMU groups with their `type`, /proc/cmdline, module
// parameters and /proc/cpuinfo. The folder is removed with the object.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace arbench::test {

// A configuration space, byte by byte: the header's Status (capability list) and capability
// pointer, the PCI Express capability at 0x40 (link capabilities, control and status), and
// extended capabilities from 0x100 (a vendor-specific one first when asked, then ACS).
class ConfigBuilder {
 public:
  explicit ConfigBuilder(std::size_t size = 4096) : b_(size, 0) {
    put16(0x00, 0x10de);
    put16(0x06, 0x0010);  // Status: capability list
    b_[0x34] = 0x40;
  }
  // Link Capabilities (max speed code 1..6, width), Link Status (current), Link Control's ASPM bits.
  ConfigBuilder& pcie(int max_code, int max_width, int cur_code, int cur_width, int aspm = 0, int port_type = 0) {
    b_[0x40] = 0x10;  // PCI Express capability ID, next 0
    put16(0x42, std::uint16_t(0x2 | (port_type << 4)));
    put32(0x4C, std::uint32_t(max_code | (max_width << 4)));
    put16(0x50, std::uint16_t(aspm));
    put16(0x52, std::uint16_t(cur_code | (cur_width << 4)));
    return *this;
  }
  // ACS with `control`, at 0x100, or after a vendor-specific capability (ACS at 0x148).
  ConfigBuilder& acs(std::uint16_t control, bool after_another = false) {
    std::size_t at = 0x100;
    if (after_another) {
      put32(0x100, 0x000B | (1u << 16) | (0x148u << 20));  // vendor-specific, next 0x148
      at = 0x148;
    }
    put32(at, 0x000D | (1u << 16));  // ACS, version 1, next 0
    put16(at + 4, 0x005F);           // ACS Capability: what the port supports
    put16(at + 6, control);
    return *this;
  }
  ConfigBuilder& put16(std::size_t at, std::uint16_t v) {
    b_[at] = std::uint8_t(v);
    b_[at + 1] = std::uint8_t(v >> 8);
    return *this;
  }
  ConfigBuilder& put32(std::size_t at, std::uint32_t v) {
    put16(at, std::uint16_t(v));
    return put16(at + 2, std::uint16_t(v >> 16));
  }
  // The first `n` bytes only, as a non-root read (64) or a conventional device (256) gives them.
  std::vector<std::uint8_t> cut(std::size_t n) const { return {b_.begin(), b_.begin() + long(std::min(n, b_.size()))}; }
  const std::vector<std::uint8_t>& bytes() const { return b_; }

 private:
  std::vector<std::uint8_t> b_;
};

struct LinkFiles {
  std::string cur_speed = "32.0 GT/s PCIe", max_speed = "32.0 GT/s PCIe";
  int cur_width = 16, max_width = 16;
};

class BoxTree {
 public:
  BoxTree() {
    static int n = 0;
    root_ = std::filesystem::temp_directory_path() /
            ("arbench-doctor-box-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "sys/bus/pci/devices");
  }
  ~BoxTree() {
    std::error_code ec;
    std::filesystem::permissions(root_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(root_, ec);
  }
  BoxTree(const BoxTree&) = delete;
  BoxTree& operator=(const BoxTree&) = delete;

  const std::filesystem::path& root() const { return root_; }

  // A device at sys/devices/<host_bridge>/<path...>/<bdf>; the bridges above it are created too.
  // `gpu`: vendor 10de and a 3D-controller class; else a PCI bridge (class 0x060400).
  std::filesystem::path device(const std::string& host_bridge, const std::vector<std::string>& path, bool gpu,
                               const LinkFiles& link = {}) {
    std::filesystem::path d = root_ / "sys/devices" / host_bridge;
    std::string rel = "../../../devices/" + host_bridge;
    for (const std::string& p : path) {
      d /= p;
      rel += "/" + p;
      if (!std::filesystem::exists(d)) {
        std::filesystem::create_directories(d);
        const bool is_last = &p == &path.back();
        write(d / "vendor", is_last && gpu ? "0x10de" : "0x1022");
        write(d / "class", is_last && gpu ? "0x030200" : "0x060400");
        write(d / "numa_node", "0");
        write(d / "current_link_speed", link.cur_speed);
        write(d / "max_link_speed", link.max_speed);
        write(d / "current_link_width", std::to_string(link.cur_width));
        write(d / "max_link_width", std::to_string(link.max_width));
        if (is_last && gpu) write(d / "device", "0x2bb5");
        std::filesystem::create_directory_symlink(rel, root_ / "sys/bus/pci/devices" / p);
      }
    }
    return d;
  }
  std::filesystem::path dev(const std::string& bdf) const {
    return std::filesystem::canonical(root_ / "sys/bus/pci/devices" / bdf);
  }
  void config(const std::string& bdf, const std::vector<std::uint8_t>& bytes) {
    std::ofstream(dev(bdf) / "config", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  void link(const std::string& bdf, const LinkFiles& l) {
    write(dev(bdf) / "current_link_speed", l.cur_speed);
    write(dev(bdf) / "max_link_speed", l.max_speed);
    write(dev(bdf) / "current_link_width", std::to_string(l.cur_width));
    write(dev(bdf) / "max_link_width", std::to_string(l.max_width));
  }
  // BAR0 16 MiB at 0xf0000000, BAR1 of `bar1` bytes at 0x38000000000, as <device>/resource lists them.
  void resource(const std::string& bdf, unsigned long long bar1) {
    char text[512];
    std::snprintf(text, sizeof text,
                  "0x00000000f0000000 0x00000000f0ffffff 0x0000000000040200\n0x0000038000000000 0x%016llx "
                  "0x000000000014220c\n0x0000000000000000 0x0000000000000000 0x0000000000000000\n",
                  0x38000000000ull + bar1 - 1);
    write(dev(bdf) / "resource", text);
  }
  void iommu_group(const std::string& bdf, int group, const std::string& type) {
    const auto g = root_ / "sys/kernel/iommu_groups" / std::to_string(group);
    std::filesystem::create_directories(g / "devices");
    write(g / "type", type);
    std::filesystem::create_directory_symlink("../../../../kernel/iommu_groups/" + std::to_string(group),
                                              dev(bdf) / "iommu_group");
  }
  void cmdline(const std::string& text) { write(root_ / "proc/cmdline", text); }
  void cpuinfo(const std::string& vendor) { write(root_ / "proc/cpuinfo", "processor\t: 0\nvendor_id\t: " + vendor); }
  void module_parameter(const std::string& module, const std::string& name, const std::string& value) {
    write(root_ / "sys/module" / module / "parameters" / name, value);
  }
  void file(const std::string& rel, const std::string& text) { write(root_ / rel, text); }

  static void write(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text << "\n";
  }

 private:
  std::filesystem::path root_;
};

// Two GPUs under one PCIe switch below a root port of pci0000:00 (a clean box: no ACS redirect,
// IOMMU in passthrough, Gen5 x16 links, BAR1 128 GiB, driver loaded):
//   0000:00:01.1 root port > 0000:01:00.0 switch up > 0000:02:00.0 / 0000:02:01.0 down > GPUs 0000:03:00.0, 0000:04:00.0
inline void two_gpus_one_switch(BoxTree& t) {
  t.device("pci0000:00", {"0000:00:01.1", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}, true);
  t.device("pci0000:00", {"0000:00:01.1", "0000:01:00.0", "0000:02:01.0", "0000:04:00.0"}, true);
  for (const char* b : {"0000:00:01.1", "0000:02:00.0", "0000:02:01.0"})
    t.config(b, ConfigBuilder().pcie(5, 16, 5, 16).acs(0x0000).bytes());
  t.config("0000:01:00.0", ConfigBuilder().pcie(5, 16, 5, 16).bytes());
  for (const char* g : {"0000:03:00.0", "0000:04:00.0"}) {
    t.config(g, ConfigBuilder().pcie(5, 16, 5, 16).bytes());
    t.resource(g, 128ull << 30);
  }
  t.iommu_group("0000:03:00.0", 20, "identity");
  t.iommu_group("0000:04:00.0", 21, "identity");
  t.cmdline("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro iommu=pt");
  t.cpuinfo("GenuineIntel");
  t.module_parameter("pcie_aspm", "policy", "[default] performance powersave powersupersave");
  t.module_parameter("nvidia_uvm", "uvm_disable_hmm", "N");
  t.file("sys/module/nvidia/version", "580.95.05");
  t.file("proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05");
}

}  // namespace arbench::test
