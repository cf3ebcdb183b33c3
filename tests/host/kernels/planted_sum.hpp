// A planted all-reduce for tests that must show a check catches a wrong sum: every rank adds
// its peers' inputs element by element in the order `ranks(world)` gives (e.g. reversed, or
// with the last peer forgotten), in fp32, and stores the result in its output.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "arbench/variant.hpp"
#include "arbench/core/dtype.hpp"

namespace arbench::testing {

class PlantedSum final : public Variant {
 public:
  explicit PlantedSum(std::function<std::vector<int>(int world)> ranks) : ranks_(std::move(ranks)) {}
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning&) override {
    c_ = c;
    order_ = ranks_(f.world());
    b_ = b;
  }
  void launch(int rank, Stream) override {
    for (std::size_t i = 0; i < c_.elements(); ++i) {
      float s = 0;
      bool first = true;
      for (int p : order_) {
        const float x = load_as_f32(b_.in->peer(rank, p), i, c_.dtype);
        s = first ? x : s + x;
        first = false;
      }
      store_from_f32(b_.out->local(rank), i, c_.dtype, s);
    }
  }

 private:
  std::function<std::vector<int>(int)> ranks_;
  Case c_;
  std::vector<int> order_;
  OpBuffers b_;
};

}  // namespace arbench::testing
