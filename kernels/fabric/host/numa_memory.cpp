#include "kernels/fabric/host/numa_memory.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

namespace fs = std::filesystem;

// Linux uapi <linux/mempolicy.h> (stable ABI values).
constexpr int kMpolPreferred = 1;
constexpr unsigned kMpolFAddr = 1u << 1;
constexpr unsigned long kMaskBits = 64;  // nodes 0..63: one word of node mask

std::string read_word(const fs::path& file) {
  std::ifstream in(file);
  std::string s;
  if (in) in >> s;
  return s;
}

// "00000000:41:00.0", "0000:41:00.0", "41:00.0" (any case) -> "0000:41:00.0" (sysfs's spelling).
std::string sysfs_bus_id(const std::string& id) {
  std::string s;
  for (char c : id) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto first = s.find(':'), last = s.rfind(':');
  if (first == std::string::npos) return s;
  std::string dom = first == last ? "0000" : s.substr(0, first);
  const std::string rest = first == last ? s : s.substr(first + 1);
  while (dom.size() > 4 && dom.front() == '0') dom.erase(0, 1);
  while (dom.size() < 4) dom.insert(0, "0");
  return dom + ":" + rest;
}

std::string errno_text(const char* call, int e) { return std::string(call) + ": " + std::strerror(e); }

std::size_t page_size() {
  const long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::size_t>(p) : 4096;
}

}  // namespace

NumaTarget gpu_numa_node(const fs::path& sysfs_root, const std::string& bus_id) {
  const std::string bdf = sysfs_bus_id(bus_id);
  const fs::path file = sysfs_root / "sys/bus/pci/devices" / bdf / "numa_node";
  const std::string shown = "/sys/bus/pci/devices/" + bdf + "/numa_node";
  const std::string text = read_word(file);
  if (text.empty()) return {-1, "GPU " + bdf + "'s NUMA node unknown: " + shown + " is missing or empty"};
  int node = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), node);
  if (ec != std::errc() || end != text.data() + text.size())
    return {-1, "GPU " + bdf + "'s NUMA node unknown: " + shown + " reads '" + text + "'"};
  if (node < 0)
    return {-1, "GPU " + bdf + "'s NUMA node unknown: " + shown + " is " + text +
                    " (the firmware gives the device no NUMA affinity, or the kernel has no NUMA support)"};
  if (!fs::is_directory(sysfs_root / "sys/devices/system/node" / ("node" + text)))
    return {-1, "GPU " + bdf + " names NUMA node " + text + ", which /sys/devices/system/node/ does not list"};
  if (static_cast<unsigned long>(node) >= kMaskBits)
    return {-1, "GPU " + bdf + " is on NUMA node " + text + ", beyond the " + std::to_string(kMaskBits) +
                    " nodes arbench places memory on"};
  return {node, {}};
}

NumaPages::NumaPages(std::size_t bytes, const NumaTarget& target) {
  const std::size_t page = page_size();
  bytes_ = std::max<std::size_t>((bytes + page - 1) / page * page, page);
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw EnvironmentError("cannot map " + std::to_string(bytes_) + " bytes of host memory: " + errno_text("mmap", errno));
  data_ = p;
  if (target.node < 0) {
    note_ = target.unknown + "; default policy (the node of the allocating thread's CPU)";
  } else {
    const unsigned long mask = 1ul << target.node;
    if (syscall(SYS_mbind, data_, bytes_, kMpolPreferred, &mask, kMaskBits + 1, 0u) != 0)
      note_ = "NUMA node " + std::to_string(target.node) + " wanted, but " + errno_text("mbind", errno) +
              "; default policy (the node of the allocating thread's CPU)";
  }
  std::memset(data_, 0, bytes_);  // the first touch: the pages are allocated now, by the policy
}

NumaPages::~NumaPages() {
  if (data_ != nullptr) munmap(data_, bytes_);
}

PageNodes page_nodes(const void* p, std::size_t bytes) {
  PageNodes out;
  const std::size_t page = page_size();
  const auto base = reinterpret_cast<std::uintptr_t>(p) / page * page;
  const std::size_t count = (reinterpret_cast<std::uintptr_t>(p) + bytes - base + page - 1) / page;
  std::vector<void*> pages(count);
  for (std::size_t i = 0; i < count; ++i) pages[i] = reinterpret_cast<void*>(base + i * page);
  std::vector<int> status(count, -1);
  // pid 0: this process; nodes == nullptr: query only, nothing moves.
  if (syscall(SYS_move_pages, 0, count, pages.data(), nullptr, status.data(), 0) != 0) {
    out.error = errno_text("move_pages", errno);
    return out;
  }
  out.nodes = status;
  return out;
}

RangePolicy range_policy(const void* p) {
  RangePolicy out;
  int mode = -1;
  unsigned long mask = 0;
  if (syscall(SYS_get_mempolicy, &mode, &mask, kMaskBits + 1, p, kMpolFAddr) != 0) {
    out.error = errno_text("get_mempolicy", errno);
    return out;
  }
  out.mode = mode;
  out.nodes = mask;
  return out;
}

std::string nodes_word(const PageNodes& pages) {
  std::set<int> nodes;
  for (int n : pages.nodes)
    if (n >= 0) nodes.insert(n);
  if (!pages.error.empty() || nodes.empty()) return "?";
  std::string s;
  for (int n : nodes) s += (s.empty() ? "" : "+") + std::to_string(n);
  return s;
}

}  // namespace arbench
