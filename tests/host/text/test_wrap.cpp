// bench/text/wrap: lines within the console's width.
#include <gtest/gtest.h>

#include "text/wrap.hpp"

using namespace arbench;

TEST(Wrap, BreaksAtWordsWithAHangingIndent) {
  EXPECT_EQ(wrap("aa bb cc dd", 5, 2), "aa bb\n  cc dd");
  EXPECT_EQ(wrap("averyveryverylongword x", 5, 0), "averyveryverylongword\nx");
  EXPECT_EQ(wrap("one\n  two three", 9, 0), "one\n  two\n  three");
  std::string kept = "keep [0 < S <= 1]";
  for (std::size_t i = 6; i < kept.size(); ++i)
    if (kept[i] == ' ') kept[i] = kKeepTogether;
  EXPECT_EQ(wrap("word " + kept, 12, 0), "word keep\n[0 < S <= 1]");
}

TEST(Wrap, FitLineKeepsTheSpacingOfColumns) {
  EXPECT_EQ(fit_line("a  b", 4, 10), "a  b\n");
  EXPECT_EQ(fit_line("name   12.5  note that is long", 4, 16), "name   12.5\n    note that is\n    long\n");
  EXPECT_EQ(fit_line(std::string(30, 'x') + " y", 2, 10), std::string(30, 'x') + "\n  y\n");
}
