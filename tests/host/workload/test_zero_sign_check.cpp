// The check of a peer whose kernels send a zero as -0.0 (FlashInfer's PCIe-IPC all-reduce:
// Variant::signed_zeros() false): the two zeros count as one value, and nothing else changes,
// so a stale or unwritten output is still wrong (arbench/core/oracle.hpp, same_element).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "arbench/core/oracle.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "workload/workload.hpp"

using namespace arbench;

namespace {

std::vector<std::uint8_t> values(DType t, std::initializer_list<float> v) {
  std::vector<std::uint8_t> out(v.size() * dtype_size(t));
  std::size_t i = 0;
  for (float x : v) store_from_f32(out.data(), i++, t, x);
  return out;
}

// Writes every rank's output as `fn(rank, i, want)` and checks.
template <class Fn>
CheckResult check_with(Workload& w, Fabric& f, const Case& c, std::uint64_t answer_seed, Fn fn) {
  const std::vector<std::uint8_t> want = oracle_sum(c.dtype, c.elements(), answer_seed, c.world);
  for (int r = 0; r < c.world; ++r) {
    std::vector<std::uint8_t> got(c.bytes);
    for (std::size_t i = 0; i < c.elements(); ++i) fn(r, i, want, got);
    f.upload(r, w.buffers().out->local(r), got.data(), c.bytes);
  }
  return w.check(f);
}

}  // namespace

TEST(ZeroSignCheck, TheTwoZerosAreOneValueOnlyWhenAsked) {
  for (DType t : kAllDTypes) {
    const auto pos = values(t, {0.0f}), neg = values(t, {-0.0f}), one = values(t, {1.0f}), tiny = values(t, {-2.0f});
    EXPECT_FALSE(same_element(neg.data(), pos.data(), t, 0)) << dtype_name(t);
    EXPECT_TRUE(same_element(neg.data(), pos.data(), t, 0, false)) << dtype_name(t);
    EXPECT_TRUE(same_element(pos.data(), neg.data(), t, 0, false)) << dtype_name(t);
    EXPECT_FALSE(same_element(one.data(), pos.data(), t, 0, false)) << dtype_name(t);
    EXPECT_FALSE(same_element(tiny.data(), neg.data(), t, 0, false)) << dtype_name(t);  // only the sign bit may differ
    const std::vector<std::uint8_t> poison(dtype_size(t), 0xff);
    EXPECT_FALSE(same_element(poison.data(), pos.data(), t, 0, false)) << dtype_name(t);
  }
}

// Out of place, oracle inputs: an output that is right but for its zeros sent as -0.0 passes
// with signed_zeros false (and fails without it); the previous input set's answer (a stale
// output) and the poison (an output no op wrote) fail either way.
TEST(ZeroSignCheck, StaleAndUnwrittenOutputsAreStillWrong) {
  for (DType t : {DType::bf16, DType::fp16}) {
    const Case c{"flashinfer-pcie-ipc", Family::allreduce, t, 4, 4096 * dtype_size(t), 0, 0, false};
    HostFabric f(4);
    auto lenient = make_workload(c, f, Placement::local, 7, 1e-6, false);
    auto strict = make_workload(c, f, Placement::local, 7, 1e-6, true);
    std::size_t zeros = 0;
    const auto negated_zeros = [&](int, std::size_t i, const std::vector<std::uint8_t>& want, std::vector<std::uint8_t>& got) {
      const float v = load_as_f32(want.data(), i, t);
      store_from_f32(got.data(), i, t, v == 0.0f ? -0.0f : v);
      zeros += v == 0.0f;
    };
    ASSERT_EQ(check_with(*lenient, f, c, 7, negated_zeros).wrong_elements, 0u) << dtype_name(t);
    ASSERT_GT(zeros, 0u) << "the oracle sums have zeros: the test needs some";
    EXPECT_GT(check_with(*strict, f, c, 7, negated_zeros).wrong_elements, 0u) << dtype_name(t);
    // The answer of the previous seed (what a kernel that skipped this op leaves): wrong, with its
    // zeros' sign forgiven too.
    const CheckResult stale = check_with(*lenient, f, c, 6, negated_zeros);
    EXPECT_GT(stale.wrong_elements, c.elements() * 4 / 2) << dtype_name(t);
    EXPECT_FALSE(stale.first_error.empty());
    lenient->next_inputs(f);  // poisons the outputs
    EXPECT_EQ(lenient->check(f).wrong_elements, 4 * c.elements()) << dtype_name(t);
  }
}
