// NCCL variables set around a communicator's creation (kernels/fabric/nccl/scoped_env.hpp) are
// not touched when they already hold their value: a child process started with its
// configuration's environment never calls setenv, so no NCCL or MPI thread can race one. Before,
// ScopedEnv called setenv whatever the value (glibc then points the variable at a new string).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "kernels/fabric/nccl/scoped_env.hpp"

namespace arbench {
namespace {

TEST(ScopedEnv, AVariableThatHoldsItsValueIsNotSet) {
  setenv("ARBENCH_TEST_SCOPED", "Ring", 1);
  const char* before = std::getenv("ARBENCH_TEST_SCOPED");
  {
    ScopedEnv scoped(std::map<std::string, std::string>{{"ARBENCH_TEST_SCOPED", "Ring"}});
    EXPECT_EQ(std::getenv("ARBENCH_TEST_SCOPED"), before) << "setenv was called for a value already there";
  }
  EXPECT_EQ(std::getenv("ARBENCH_TEST_SCOPED"), before) << "nor when restoring it";
  unsetenv("ARBENCH_TEST_SCOPED");
}

TEST(ScopedEnv, OtherValuesAreSetAndRestored) {
  setenv("ARBENCH_TEST_SCOPED", "Tree", 1);
  {
    const std::map<std::string, std::string> vars = {{"ARBENCH_TEST_SCOPED", "Ring"}, {"ARBENCH_TEST_SCOPED_NEW", "LL"}};
    ScopedEnv scoped(vars);
    EXPECT_STREQ(std::getenv("ARBENCH_TEST_SCOPED"), "Ring");
    EXPECT_STREQ(std::getenv("ARBENCH_TEST_SCOPED_NEW"), "LL");
  }
  EXPECT_STREQ(std::getenv("ARBENCH_TEST_SCOPED"), "Tree");
  EXPECT_EQ(std::getenv("ARBENCH_TEST_SCOPED_NEW"), nullptr);
  unsetenv("ARBENCH_TEST_SCOPED");
}

}  // namespace
}  // namespace arbench
