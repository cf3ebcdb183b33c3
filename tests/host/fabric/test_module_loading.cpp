// CUDA_MODULE_LOADING=EAGER is set before the first CUDA call (kernels/fabric/cuda/module_loading.hpp):
// under lazy loading a kernel first launched while the start gate's kernel spins may wait for the
// gate, and the sample times out. Before, arbench left CUDA's default (lazy) in place.
#include <gtest/gtest.h>

#include "kernels/fabric/cuda/module_loading.hpp"

namespace arbench {
namespace {

TEST(ModuleLoading, UnsetBecomesEagerQuietly) {
  const auto c = module_loading_to_set(nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->value, "EAGER");
  EXPECT_EQ(c->note, "");
}

TEST(ModuleLoading, LazyIsReplacedAndTheUserIsTold) {
  const auto c = module_loading_to_set("LAZY");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->value, "EAGER");
  EXPECT_NE(c->note.find("CUDA_MODULE_LOADING=LAZY replaced by EAGER"), std::string::npos) << c->note;
  EXPECT_NE(c->note.find("start gate"), std::string::npos) << c->note;
}

TEST(ModuleLoading, EagerStays) { EXPECT_FALSE(module_loading_to_set("EAGER").has_value()); }

TEST(ModuleLoading, PrepareSetsTheProcessEnvironment) {
  setenv(kModuleLoadingVar, "LAZY", 1);
  EXPECT_NE(prepare_module_loading(), "");
  EXPECT_STREQ(std::getenv(kModuleLoadingVar), "EAGER");
  EXPECT_EQ(prepare_module_loading(), "") << "already eager: nothing to say";
}

}  // namespace
}  // namespace arbench
