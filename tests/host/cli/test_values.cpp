// bench/cli/values: what each kind of option accepts, and the messages for what it does not.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "cli/values.hpp"

using namespace arbench;

namespace {

// Parses `args` on an app holding the options `add` declares; the error text, empty when fine.
template <class Add>
std::string parse(Add add, std::vector<std::string> args) {
  CLI::App app{"t"};
  add(app);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(CliValues, NumberProblems) {
  const cli::Range timeout = cli::positive(3600);
  EXPECT_EQ(cli::number_problem("10", timeout, "S"), "");
  EXPECT_EQ(cli::number_problem("0.5", timeout, "S"), "");
  EXPECT_EQ(cli::number_problem("nan", timeout, "S"), "nan is not a number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("-NaN", timeout, "S"), "-NaN is not a number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("inf", timeout, "S"), "inf is not a finite number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("-infinity", timeout, "S"), "-infinity is not a finite number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("0", timeout, "S"), "0 is out of range: 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("1e300", timeout, "S"), "1e300 is out of range: 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("1e5000", timeout, "S"), "1e5000 is too large a number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("abc", timeout, "S"), "'abc' is not a number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("5s", timeout, "S"), "'5s' is not a number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("", timeout, "S"), "an empty value is not a number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem(" 5", timeout, "S"), "' 5' is not a number; expected 0 < S <= 3600");
  const cli::Range count = cli::ints(0, 100);
  EXPECT_EQ(cli::number_problem("0", count, "N"), "");
  EXPECT_EQ(cli::number_problem("+7", count, "N"), "");
  EXPECT_EQ(cli::number_problem("1.5", count, "N"), "1.5 is not a whole number; expected 0 <= N <= 100");
  EXPECT_EQ(cli::number_problem("1e2", count, "N"), "1e2 is not a whole number; expected 0 <= N <= 100");
  EXPECT_EQ(cli::number_problem("-1", count, "N"), "-1 is out of range: 0 <= N <= 100");
  EXPECT_EQ(cli::number_problem("101", count, "N"), "101 is out of range: 0 <= N <= 100");
  // One rule for reals and integers: decimal only (strtold alone took 0x10 for a real, 16).
  EXPECT_EQ(cli::number_problem("0x10", timeout, "S"), "'0x10' is not a decimal number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("0x10", count, "N"), "'0x10' is not a decimal number; expected 0 <= N <= 100");
  EXPECT_EQ(cli::number_problem("0x1p3", timeout, "S"), "'0x1p3' is not a decimal number; expected 0 < S <= 3600");
  EXPECT_EQ(cli::number_problem("1e3", timeout, "S"), "");
}

TEST(CliValues, ConstraintsReadAsHelpShowsThem) {
  EXPECT_EQ(cli::ints(1, 8).constraint("N"), "1 <= N <= 8");
  EXPECT_EQ(cli::above(1, 1024).constraint("F"), "1 < F <= 1024");
  EXPECT_EQ(cli::positive(0.5).constraint("P"), "0 < P <= 0.5");
  EXPECT_EQ(cli::byte_sizes(16, 64 << 20).constraint("SIZE"), "16 <= SIZE <= 64M");
  EXPECT_EQ(cli::ints(0, 18446744073709551615.0L).constraint("N"), "0 <= N <= 18446744073709551615");
}

TEST(CliValues, NumberOptionsValidateBeforeConverting) {
  std::optional<int> n;
  double x = 2;
  auto add = [&](CLI::App& app) {
    cli::number(app, "--n", n, "N", cli::ints(1, 8), "n");
    cli::number(app, "-x,--x", x, "X", cli::above(1, 10), "x");
  };
  EXPECT_EQ(parse(add, {"--n", "4", "-x", "2.5"}), "");
  EXPECT_EQ(n, 4);
  EXPECT_DOUBLE_EQ(x, 2.5);
  EXPECT_EQ(parse(add, {"--n", "9"}), "--n: 9 is out of range: 1 <= N <= 8");
  EXPECT_EQ(parse(add, {"-x", "nan"}), "--x: nan is not a number; expected 1 < X <= 10");
}

TEST(CliValues, SizesAndPercents) {
  std::optional<std::size_t> bytes;
  double pct = 5;
  auto add = [&](CLI::App& app) {
    cli::size(app, "--bytes", bytes, cli::byte_sizes(1, 64.0L * (1ULL << 30)), "b");
    cli::percent(app, "--pct", pct, cli::reals(0, 100), "p");
  };
  EXPECT_EQ(parse(add, {"--bytes", "64K", "--pct", "7%"}), "");
  EXPECT_EQ(bytes, 65536u);
  EXPECT_DOUBLE_EQ(pct, 7);
  EXPECT_EQ(parse(add, {"--bytes", "0"}), "--bytes: 0 is out of range: 1 <= SIZE <= 64G (bytes)");
  EXPECT_EQ(parse(add, {"--bytes", "65G"}), "--bytes: 65G is out of range: 1 <= SIZE <= 64G (bytes)");
  EXPECT_NE(parse(add, {"--bytes", "12Q"}).find("--bytes: '12Q' is not a size"), std::string::npos);
  EXPECT_EQ(parse(add, {"--pct", "nan%"}), "--pct: nan is not a number; expected 0 <= PCT <= 100");
  EXPECT_EQ(parse(add, {"--pct", "5 %"}), "");
  EXPECT_EQ(parse(add, {"--pct", "5%%"}), "--pct: '5%%' is not a percentage; give a number, e.g. 5 or 5%");
  EXPECT_EQ(parse(add, {"--pct", "%5"}), "--pct: '%5' is not a percentage; give a number, e.g. 5 or 5%");
}

TEST(CliValues, ListsRefuseEmptyItemsAndRepeats) {
  std::vector<int> gpus;
  std::vector<double> skews;
  std::vector<std::string> dtypes;
  auto add = [&](CLI::App& app) {
    cli::int_list(app, "--gpus", gpus, "N", cli::ints(1, 8), "g");
    cli::real_list(app, "--skew", skews, "US", cli::reals(0, 100), "s");
    cli::choice_list(app, "--dtype", dtypes, {"bf16", "fp32"}, "d");
  };
  EXPECT_EQ(parse(add, {"--gpus", "4,2", "--gpus", "8", "--skew", "0,2.5", "--dtype", "fp32"}), "");
  EXPECT_EQ(gpus, (std::vector<int>{4, 2, 8}));
  EXPECT_EQ(skews, (std::vector<double>{0, 2.5}));
  EXPECT_EQ(dtypes, (std::vector<std::string>{"fp32"}));
  EXPECT_EQ(parse(add, {"--gpus", "2,,4"}), "--gpus: '2,,4' has an empty item; separate the values by single commas");
  EXPECT_EQ(parse(add, {"--gpus", "2,"}), "--gpus: '2,' has an empty item; separate the values by single commas");
  EXPECT_EQ(parse(add, {"--gpus", ""}), "--gpus: an empty list; give one or more values separated by commas");
  EXPECT_EQ(parse(add, {"--gpus", "2,4", "--gpus", "2"}), "--gpus: 2 is listed twice; list each value once");
  EXPECT_EQ(parse(add, {"--skew", "0,0.0"}), "--skew: 0.0 is listed twice; list each value once");
  EXPECT_EQ(parse(add, {"--gpus", "2,9"}), "--gpus: 9 is out of range: 1 <= N <= 8");
  EXPECT_EQ(parse(add, {"--dtype", "int8"}), "--dtype: 'int8' is not one of bf16 or fp32");
  EXPECT_NE(parse(add, {"--gpus", "2", "4"}).find("not expected: 4"), std::string::npos);  // one value a time
}

TEST(CliValues, ChoicesTextAndOffFlags) {
  std::string cache = "hot", name;
  bool check = true;
  auto add = [&](CLI::App& app) {
    cli::choice(app, "--cache", cache, {"hot", "cold"}, "c");
    cli::text(app, "--name", name, "NAME", "n");
    cli::off_flag(app, "--no-check", check, "skip");
  };
  EXPECT_EQ(parse(add, {"--cache", "cold", "--name", "x", "--no-check"}), "");
  EXPECT_EQ(cache, "cold");
  EXPECT_FALSE(check);
  EXPECT_EQ(parse(add, {"--cache", "warm"}), "--cache: 'warm' is not one of hot or cold");
  EXPECT_EQ(parse(add, {"--name", ""}), "--name: an empty value; give one");
}
