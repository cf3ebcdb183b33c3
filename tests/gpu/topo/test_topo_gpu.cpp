// The CUDA half of `arbench topo` on real GPUs: device list and bus ids, P2P attributes, and
// the link probes (diagonal on one GPU; every pair on two or more). Skips without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string_view>

#include "topo/topology.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/gpu/probe.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace arbench::topo {
namespace {

// Physically plausible bands, wide enough for every GPU box arbench may meet and narrow enough that
// a unit slip (bytes/us taken as GB/s, ms as us: factors of 1000) or a zero lands outside:
// - a link between two GPUs, one way: above 1 GB/s (the slowest path still used, PCIe Gen3 x4 or
//   a copy staged through host memory, moves ~3 GB/s even at the small probe's 4 MiB) and below
//   1000 GB/s (NVLink 5, the fastest GPU link today, is 900 GB/s per direction); both ways at
//   once (the sum): below 2000 GB/s.
// - the diagonal, a copy within one GPU: above 1 GB/s and below 10000 GB/s (no GPU memory reaches
//   10 TB/s; B200's HBM3e is 8 TB/s).
// - one-way latency: above 0.05 us (a flag through L2 alone takes longer) and below 1000 us (a
//   PCIe hop is 1-3 us; a ms would be a lost peer or a unit slip).
void expect_plausible(const LinkMatrix& m, std::string_view name) {
  const bool latency = name == kLatency;
  const bool bidir = name.find("bidir") != std::string_view::npos;
  for (std::size_t i = 0; i < m.values.size(); ++i)
    for (std::size_t j = 0; j < m.values[i].size(); ++j) {
      if (!m.values[i][j]) continue;
      const double v = *m.values[i][j];
      const double low = latency ? 0.05 : 1.0;
      const double high = latency ? 1000.0 : i == j ? 10000.0 : bidir ? 2000.0 : 1000.0;
      EXPECT_GT(v, low) << name << " " << i << "->" << j << " (" << m.unit << ")";
      EXPECT_LT(v, high) << name << " " << i << "->" << j << " (" << m.unit << ")";
    }
}

// 4 MiB x 3 copies, 200 round trips per cell: every pair in seconds.
ProbeOptions small() { return ProbeOptions{.bytes = 4 << 20, .repetitions = 3, .latency_rounds = 200}; }

TEST(TopoGpu, ListsDevicesWithBusIds) {
  ARB_REQUIRE_GPUS(1);
  auto gpus = list_cuda_gpus();
  ASSERT_EQ(static_cast<int>(gpus.size()), cuda_device_count());
  for (const auto& g : gpus) {
    EXPECT_TRUE(normalize_bus_id(g.bus_id)) << g.bus_id;
    EXPECT_GT(g.cc_major, 0);
    EXPECT_GT(g.sm_count, 0);
  }
  Topology t = read_sysfs_topology("/");
  for (const auto& g : gpus)
    if (t.find_gpu(g.bus_id) < 0) std::cout << g.bus_id << " not placed in /sys (virtual machine?)\n";
}

TEST(TopoGpu, P2pMatrixShape) {
  // Every cell of all three matrices against CUDA asked directly, so a transposed, shifted or
  // unfilled matrix fails; the diagonal (a GPU and itself) is 0 by definition.
  ARB_REQUIRE_GPUS(1);
  const int n = cuda_device_count();
  P2pMatrix m = query_p2p(n);
  for (const auto* mat : {&m.access, &m.native_atomics, &m.performance_rank}) {
    ASSERT_EQ(static_cast<int>(mat->size()), n);
    for (const auto& row : *mat) ASSERT_EQ(static_cast<int>(row.size()), n);
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) {
        EXPECT_EQ(m.access[i][i], 0);
        EXPECT_EQ(m.native_atomics[i][i], 0);
        EXPECT_EQ(m.performance_rank[i][i], 0);
        continue;
      }
      int access = -1, atomics = -1, rank = -1;
      ASSERT_EQ(cudaDeviceCanAccessPeer(&access, i, j), cudaSuccess);
      ASSERT_EQ(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, i, j), cudaSuccess);
      ASSERT_EQ(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, i, j), cudaSuccess);
      EXPECT_EQ(m.access[i][j], access) << i << "->" << j;
      EXPECT_EQ(m.native_atomics[i][j], atomics) << i << "->" << j;
      EXPECT_EQ(m.performance_rank[i][j], rank) << i << "->" << j;
    }
}

TEST(TopoGpu, OneGpuMeasuresTheDiagonalAndSkipsPairs) {
  ARB_REQUIRE_GPUS(1);
  auto gpus = list_cuda_gpus();
  gpus.resize(1);
  Links l = run_link_probes(gpus, small());
  for (auto name : {kCeUnidir, kPushUnidir, kPullUnidir, kLatency}) {
    const LinkMatrix& m = l.matrices.at(std::string(name));
    ASSERT_TRUE(m.skipped) << name;
    EXPECT_NE(m.skipped->find("fewer than 2 GPUs"), std::string::npos) << name;
    ASSERT_TRUE(m.values[0][0]) << name << " notes: " << (m.notes.empty() ? "" : m.notes[0]);
    expect_plausible(m, name);
  }
  EXPECT_FALSE(l.matrices.at(std::string(kCeBidir)).values[0][0]);  // no pair, no bidirectional cell
}

TEST(TopoGpu, EveryPairIsMeasured) {
  ARB_REQUIRE_GPUS(2);
  auto gpus = list_cuda_gpus();
  Links l = run_link_probes(gpus, small());
  const LinkMatrix& ce = l.matrices.at(std::string(kCeUnidir));
  EXPECT_FALSE(ce.skipped);
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      ASSERT_TRUE(ce.values[i][j]) << i << "->" << j;
      EXPECT_GT(*ce.values[i][j], 0.0);
    }
  P2pMatrix p2p = query_p2p(static_cast<int>(gpus.size()));
  const LinkMatrix& lat = l.matrices.at(std::string(kLatency));
  if (p2p.access[0][1] && p2p.access[1][0]) {
    ASSERT_TRUE(lat.values[0][1]) << (lat.notes.empty() ? "" : lat.notes[0]);
    EXPECT_GT(*lat.values[0][1], 0.0);
    EXPECT_LT(*lat.values[0][1], 1000.0);  // microseconds; a PCIe hop is a few
  }
  int cells = 0;
  for (const auto& [name, m] : l.matrices) {
    expect_plausible(m, name);
    for (const auto& row : m.values) cells += int(std::count_if(row.begin(), row.end(), [](auto v) { return v.has_value(); }));
  }
  EXPECT_GE(cells, int(gpus.size() * gpus.size())) << "at least the copy-engine matrix is full";
}

}  // namespace
}  // namespace arbench::topo
