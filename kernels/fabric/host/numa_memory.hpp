// Host memory on a GPU's NUMA node: the island variants' host-memory mailboxes
// (kernels/fabric/cuda/island_memory.hpp, HostMappedBuffers; docs/topology.md, "Where the
// host-memory mailboxes sit"). A GPU polls its mailbox over PCIe on every poll: on a two-socket
// box, a mailbox on the far socket puts every poll across the socket link.
//
// Placement, and why this way: the pages are mapped (mmap), given the policy "preferred: the
// GPU's node" (mbind, MPOL_PREFERRED) and only then touched (zeroed), so the kernel allocates
// each page on that node whichever CPU the touching thread runs on; cudaHostRegister pins them
// where they are. A policy on the pages states the intent in one place, where binding the
// allocating thread to the node's CPUs would depend on the scheduler and on the process's own
// policy (numactl --interleave would override the thread). Preferred, not bound: a node without
// free memory falls back to another instead of failing the run, and page_nodes() then records
// where the pages really went. A GPU whose node is unknown keeps the default policy, and says so.
// Raw syscalls (Linux uapi <linux/mempolicy.h>), so no libnuma is needed to build or run.
// No CUDA here: the choice and the pages are tested on the host with sysfs fixture trees.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace arbench {

// The NUMA node a GPU's host memory should sit on.
struct NumaTarget {
  int node = -1;        // >= 0: the node; < 0: unknown
  std::string unknown;  // node < 0: why ("sysfs numa_node of 0000:86:00.0 is -1 ...")
};

// The node of the PCI device `bus_id` ("0000:41:00.0", any case, 8-digit domain as CUDA and NVML
// give it) from <sysfs_root>/sys/bus/pci/devices/<bdf>/numa_node; the node must be listed under
// <sysfs_root>/sys/devices/system/node/. -1, a missing file or an unlisted node: unknown, with why.
NumaTarget gpu_numa_node(const std::filesystem::path& sysfs_root, const std::string& bus_id);

// Page-aligned anonymous memory, placed on `target.node` (see above) and zero-filled.
class NumaPages {
 public:
  // Throws EnvironmentError when the memory cannot be mapped. A refused policy (mbind: e.g. a
  // container's seccomp profile) is no error: the pages keep the default policy and note() says so.
  NumaPages(std::size_t bytes, const NumaTarget& target);
  ~NumaPages();
  NumaPages(const NumaPages&) = delete;
  NumaPages& operator=(const NumaPages&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }  // rounded up to whole pages
  // Empty when the policy is on the pages; else why not (node unknown, mbind refused).
  const std::string& note() const { return note_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::string note_;
};

// The node of each page of [p, p + bytes) (move_pages in query mode; the pages must be touched);
// `error` set (and `nodes` empty) when the kernel refuses the query.
struct PageNodes {
  std::vector<int> nodes;  // by page; < 0: -errno for that page (e.g. -ENOENT: not present)
  std::string error;
};
PageNodes page_nodes(const void* p, std::size_t bytes);

// The policy of the mapping at `p` (get_mempolicy with MPOL_F_ADDR): its mode (MPOL_DEFAULT 0,
// MPOL_PREFERRED 1, MPOL_BIND 2, ...) and its nodes as a bit mask (nodes 0..63).
struct RangePolicy {
  int mode = -1;
  unsigned long long nodes = 0;
  std::string error;  // non-empty: the query was refused
};
RangePolicy range_policy(const void* p);

// Where the pages of one buffer sit, in one word for the result: "1" (all on node 1), "0+1"
// (spread), or "?" (query refused, or no page present).
std::string nodes_word(const PageNodes& pages);

}  // namespace arbench
