// What the FP8 twin tests share: one op of an FP8 twin on given inputs (every rank's output back);
// the model and the inputs: fp8_model.hpp.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/host/kernels/fp8_model.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/fp8/fp8_twins.hpp"
#include "tests/host/kernels/twin_harness.hpp"

namespace arbench::testing {

inline const char* fp8_name(Fp8Algo a) { return text_of(kFp8Text, a).name; }
inline int fp8_quantizations(Fp8Algo a) { return a == Fp8Algo::oneshot ? 1 : 2; }

// One op of `v` (prepared here for an out-of-place case) on `fabric`; every rank's output bytes.
inline std::vector<std::vector<std::uint8_t>> run_fp8_op(HostFabric& fabric, Variant& v, const std::string& name,
                                                         DType t, const RankValues& in, int host_threads = 0) {
  const int world = static_cast<int>(in.size());
  const std::size_t n = in[0].size(), bytes = n * dtype_size(t);
  TwinCase tc = make_twin_case(fabric, v, name, t, world, n, false);
  Tuning tune;
  tune.host_threads = host_threads;
  v.prepare(tc.c, fabric, tc.buffers, tune);
  std::vector<std::uint8_t> host(bytes);
  for (int r = 0; r < world; ++r) {
    for (std::size_t i = 0; i < n; ++i) store_from_f32(host.data(), i, t, in[std::size_t(r)][i]);
    fabric.upload(r, tc.in->local(r), host.data(), bytes);
  }
  fabric.run([&](int rank, Stream st) { v.launch(rank, st); });
  v.check_errors();
  std::vector<std::vector<std::uint8_t>> out(static_cast<std::size_t>(world), std::vector<std::uint8_t>(bytes));
  for (int r = 0; r < world; ++r) fabric.download(r, out[std::size_t(r)].data(), tc.out->local(r), bytes);
  return out;
}

}  // namespace arbench::testing
