// What `arbench run` shows on a console: arbench's table within 120 columns for the default host
// sweep, --wide for Google Benchmark's table, no DEBUG-build warning, and the live progress line
// on a terminal only (also with -q).
#include <gtest/gtest.h>

#include "arbench/core/peers.hpp"
#include "cli_util.hpp"
#include "spawn_util.hpp"

namespace {

// The cases of the filtered default sweep that the peers built into this arbench add (each is
// skipped on the host fabric: a peer has no host twin): every peer runs at 2, 4 and 8 GPUs, the
// all-reduce peers at 1, 2, 4 and 8 KB, the fused one at 1, 2, 4 and 8 tokens.
std::size_t peer_cases_skipped() {
  std::size_t n = 0;
  for (const auto& [name, why] : arbench::peer_build().variants) n += why.empty() ? 3 * 4 : 0;
  return n;
}

std::size_t display_columns(const std::string& line) {  // UTF-8 code points
  std::size_t n = 0;
  for (unsigned char ch : line) n += (ch & 0xC0) != 0x80;
  return n;
}

}  // namespace

// The default host sweep (`arbench run` on a machine without a GPU), with fewer samples, and of
// its cases only those up to 8 KB and 8 tokens (--benchmark_filter): every kind of line the
// default prints, as wide as the default prints it, without its large cases (95% of its time):
//   - the banner is the default sweep's (its sweep line is checked below; the filter only
//     lengthens the cases line), with a fabric line per world size 2, 4 and 8;
//   - the table's width is set by its longest case name, clamped to leave the figures room: a
//     fused-island name at 8 GPUs (53 characters with tokens:1, 55 with tokens:256) reaches the
//     clamp either way, so the rows are as wide as the default's and the longest get a line of
//     their own; the figure columns are fixed and numbers only lose decimals;
//   - every variant of both families at every world size runs or is skipped, so the fusion
//     summary and each skip reason's footer line are there.
TEST(CliConsole, DefaultHostSweepFits120Columns) {
  const std::string backend = has_gpu_driver_and_device() ? "--backend host " : "";
  CliResult r = run_arbench("run " + backend + "--samples 2 --warmup 0 --pipelined-ops 1 "
                            "'--benchmark_filter=/(bytes:[0-9]{4}|tokens:[0-9])(/|$)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::size_t widest = 0, rows = 0, two_line_rows = 0;
  std::string widest_line;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    if (display_columns(line) > widest) widest = display_columns(line), widest_line = line;
    rows += line.rfind("  ", 0) == 0 && line.find("  ok") != std::string::npos;
    two_line_rows += line.rfind("  fused-island-twoshot/bf16/gpus:8/", 0) == 0 && line.find("  ok") == std::string::npos;
  }
  EXPECT_LE(widest, 120u) << "widest line (" << widest << " columns):\n" << widest_line;
  EXPECT_NE(r.output.find("  sweep: gpus 2,4,8 | sizes 1K..1M x2 | tokens 1,2,4,8,16,32,64,128,256 x hidden 8192 | "
                          "dtype bf16\n"),
            std::string::npos)
      << r.output;  // the default sweep's banner
  for (int gpus : {2, 4, 8})
    EXPECT_NE(r.output.find("  fabric: " + std::to_string(gpus) + " CPU threads"), std::string::npos) << r.output;
  EXPECT_EQ(rows, 180u) << r.output;  // every case of the default sweep up to 8 KB and 8 tokens
  // 36 of arbench's own skipped on the host fabric, and the peers' where this arbench has them.
  const std::string tally = "arbench: 180 cases run, 180 ok, 0 failed, " + std::to_string(36 + peer_cases_skipped()) +
                            " skipped";
  EXPECT_NE(r.output.find(tally), std::string::npos) << tally << "\n" << r.output;
  EXPECT_GT(two_line_rows, 0u) << r.output;  // the names too long for the table's name column
  EXPECT_NE(r.output.find("fusion summary"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Library was built as DEBUG"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Iterations"), std::string::npos) << r.output;  // Google Benchmark's columns are gone
  RecordProperty("widest_line", widest_line);
}

TEST(CliConsole, WideKeepsGoogleBenchmarksTable) {
  for (const char* flag : {"--wide", "--benchmark_format=console"}) {
    CliResult r = run_arbench(std::string("run --backend host --variants reference --gpus 2 -b 1K -e 1K --samples 2 ") + flag);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Iterations"), std::string::npos) << flag << "\n" << r.output;
    EXPECT_NE(r.output.find("busbw_GBps"), std::string::npos) << flag << "\n" << r.output;
    EXPECT_NE(r.output.find("p99_us"), std::string::npos) << flag << "\n" << r.output;
    EXPECT_EQ(r.output.find("Library was built as DEBUG"), std::string::npos) << r.output;
  }
}

TEST(CliConsole, ProgressLineOnATerminalOnly) {
  const std::string args = "run --backend host --variants reference --gpus 2 -b 1K -e 8K --samples 20";
  for (const char* quiet : {"", " -q"}) {
    Child tty = spawn_arbench(args + quiet, /*terminal=*/true, 120);
    read_until(tty, "cases run", 60);
    EXPECT_EQ(finish(tty, 60), 0) << tty.output;
    EXPECT_NE(tty.output.find("[1/4] allreduce/reference/bf16/gpus:2/bytes:1024... ETA"), std::string::npos)
        << quiet << "\n" << tty.output;
    EXPECT_NE(tty.output.find("[4/4] allreduce/reference/bf16/gpus:2/bytes:8192... ETA"), std::string::npos)
        << quiet << "\n" << tty.output;
    EXPECT_NE(tty.output.find("\r\033[K"), std::string::npos);  // erased, not scrolled
  }
  Child pipe = spawn_arbench(args, /*terminal=*/false);
  EXPECT_EQ(finish(pipe, 60), 0) << pipe.output;
  EXPECT_EQ(pipe.output.find("[1/4]"), std::string::npos) << pipe.output;
  EXPECT_EQ(pipe.output.find('\r'), std::string::npos) << pipe.output;
  EXPECT_NE(pipe.output.find("4 cases run, 4 ok"), std::string::npos) << pipe.output;
  // Without a terminal: whole log lines instead, one at the family's end (and every 30 s).
  EXPECT_NE(pipe.output.find("arbench: progress 4/4 cases (100%), "), std::string::npos) << pipe.output;
  EXPECT_NE(pipe.output.find(", ETA 0s; family allreduce done\n"), std::string::npos) << pipe.output;
}
