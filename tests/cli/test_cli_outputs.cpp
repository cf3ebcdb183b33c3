// The files a host run writes, as compare/tune and spreadsheets read them: the CSV's fused
// columns, and `arbench tune` never naming a variant that does not exist on GPUs.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"

namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "arbench-outputs-" + name + "-" + std::to_string(::getpid());
}

}  // namespace

TEST(CliOutputs, CsvHasTheFusedColumnsAndTuneSkipsHostOnlyVariants) {
  const std::string out = temp_path("r.json"), csv = temp_path("r.csv"), table = temp_path("t.json");
  CliResult r = run_arbench("run --backend host --gpus 2 -b 1K -e 4K --tokens 1,2 --hidden 512 --samples 3 --warmup 1 "
                            "--pipelined-ops 0 -q --out " + out + " --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  for (const char* col : {",status,reason,", ",max_ulp_error,", ",speedup_vs_unfused,", ",fusion_saved_us"})
    EXPECT_NE(header.find(col), std::string::npos) << col << "\n" << header;
  // The speedup cell by the header's column (no field of these rows needs quoting).
  auto cells = [](const std::string& l) {
    std::vector<std::string> split;
    std::stringstream ss(l);
    for (std::string cell; std::getline(ss, cell, ',');) split.push_back(cell);
    return split;
  };
  const std::vector<std::string> keys = cells(header);
  const auto speedup_col = std::size_t(std::find(keys.begin(), keys.end(), "speedup_vs_unfused") - keys.begin());
  ASSERT_LT(speedup_col, keys.size()) << header;
  int fused_rows_with_speedup = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> row = cells(line);
    if (line.rfind("allreduce_rmsnorm/fused-", 0) == 0 && speedup_col < row.size() && !row[speedup_col].empty())
      ++fused_rows_with_speedup;
  }
  EXPECT_EQ(fused_rows_with_speedup, 8)
      << "fused-oneshot, fused-twoshot, fused-island-oneshot and fused-island-twoshot at 2 token counts";

  CliResult t = run_arbench("tune " + out + " --out " + table);
  ASSERT_EQ(t.exit_code, 0) << t.output;
  EXPECT_NE(t.output.find("reference (3 cases): not a dispatch candidate"), std::string::npos) << t.output;
  std::ifstream tin(table);
  const nlohmann::json doc = nlohmann::json::parse(tin);
  EXPECT_EQ(doc.dump().find("\"reference\""), std::string::npos) << doc.dump(1);
  std::remove(out.c_str());
  std::remove(csv.c_str());
  std::remove(table.c_str());
}
