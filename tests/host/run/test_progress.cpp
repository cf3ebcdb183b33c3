// The `[k/N] case... ETA` line (bench/run/progress.hpp): drawn per case, erased before the
// case's row, cut to the terminal's width, silent when disabled (no terminal).
#include <gtest/gtest.h>

#include <sstream>

#include "run/progress.hpp"

using namespace arbench;

TEST(Progress, DrawsAndErasesOneLinePerCase) {
  std::ostringstream out;
  {
    Progress p(out, true, 3, 120);
    p.begin("allreduce/ring/bf16/gpus:2/bytes:1024");
    EXPECT_NE(out.str().find("[1/3] allreduce/ring/bf16/gpus:2/bytes:1024... ETA ..."), std::string::npos) << out.str();
    p.end();
    EXPECT_EQ(out.str().substr(out.str().size() - 4), "\r\033[K");  // erased before the row is printed
    p.begin("allreduce/ring/bf16/gpus:2/bytes:2048");
    EXPECT_NE(out.str().find("[2/3] allreduce/ring/bf16/gpus:2/bytes:2048... ETA 0s"), std::string::npos) << out.str();
    p.end();
  }
  EXPECT_EQ(out.str().find('\n'), std::string::npos);  // never scrolls
}

TEST(Progress, SilentWithoutATerminal) {
  std::ostringstream out;
  Progress p(out, false, 3);
  p.begin("allreduce/ring/bf16/gpus:2/bytes:1024");
  p.end();
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, CutToTheTerminalWidth) {
  std::ostringstream out;
  Progress p(out, true, 200, 40);
  p.begin(std::string(100, 'n'));
  const std::string line = out.str().substr(out.str().rfind('\r') + 4);  // after "\r\033[K"
  EXPECT_LE(line.size(), 39u) << line;
  EXPECT_NE(line.find("[1/200] nnn"), std::string::npos) << line;
  EXPECT_NE(line.find("... ETA"), std::string::npos) << line;
}

TEST(Progress, DurationText) {
  EXPECT_EQ(Progress::duration_text(0.2), "0s");
  EXPECT_EQ(Progress::duration_text(45), "45s");
  EXPECT_EQ(Progress::duration_text(65), "1m05s");
  EXPECT_EQ(Progress::duration_text(7380), "2h03m");
}
