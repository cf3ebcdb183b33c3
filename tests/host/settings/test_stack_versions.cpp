// Version numbers as users and Python metadata write them (bench/settings/catalogue/stack_versions.hpp).
#include <gtest/gtest.h>

#include "settings/catalogue/stack_versions.hpp"

namespace arbench {
namespace {

TEST(StackVersions, ParsesReleasesAndKeepsTheTail) {
  auto v = parse_version("2.28.9");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 2);
  EXPECT_EQ(v->minor, 28);
  EXPECT_EQ(v->patch, 9);
  EXPECT_EQ(v->text(), "2.28.9");
  auto w = parse_version("0.11");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->text(), "0.11.0");
  auto rc = parse_version("1.0.0rc3");
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->tail, "rc3");
  EXPECT_EQ(*rc, *parse_version("1.0.0"));
  auto torch = parse_version("2.9.1+cu130");
  ASSERT_TRUE(torch);
  EXPECT_EQ(torch->patch, 1);
  EXPECT_EQ(torch->tail, "+cu130");
}

TEST(StackVersions, OrdersByNumberNotByText) {
  EXPECT_LT(*parse_version("2.9.0"), *parse_version("2.28.9"));
  EXPECT_LT(*parse_version("2.28.9"), *parse_version("2.29.2"));
  EXPECT_GT(*parse_version("0.10.0"), *parse_version("0.9.2"));
}

TEST(StackVersions, RefusesWhatIsNotARelease) {
  for (const char* bad : {"", "abc", "2", "v2.28", "2..1", "2.28.", "2.28 .9", "2.28,9", ".5", "-1.2"})
    EXPECT_FALSE(parse_version(bad)) << bad;
}

}  // namespace
}  // namespace arbench
