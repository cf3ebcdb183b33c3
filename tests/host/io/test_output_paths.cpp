// bench/io/output_paths: outputs that cannot be written are refused before any work.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "arbench/core/errors.hpp"
#include "io/output_paths.hpp"
#include "tests/host/thrown.hpp"

using namespace arbench;

namespace {

std::string refusal(const std::vector<NamedPath>& out, const std::vector<NamedPath>& in = {}) {
  return test::thrown_message<UsageError>([&] { check_output_paths(out, in); });
}

}  // namespace

TEST(OutputPaths, WhatTheTextAloneTells) {
  EXPECT_EQ(output_path_problem("r.json"), "");
  EXPECT_NE(output_path_problem("").find("an empty file name"), std::string::npos);
  EXPECT_NE(output_path_problem(testing::TempDir()).find("a folder"), std::string::npos);
  EXPECT_NE(output_path_problem("/dev/null").find("not a regular file"), std::string::npos);
  EXPECT_NE(output_path_problem("results/").find("a folder"), std::string::npos);
}

TEST(OutputPaths, FoldersClashesAndInputs) {
  const std::string dir = testing::TempDir() + "arbench-out-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir + "/sub");
  EXPECT_EQ(refusal({{"--out", dir + "/r.json"}, {"--csv", dir + "/r.csv"}, {"--benchmark_out", ""}}), "");
  EXPECT_EQ(refusal({{"--out", "/nonexistent-dir/r.json"}}),
            "--out /nonexistent-dir/r.json: the folder /nonexistent-dir does not exist; create it (mkdir -p "
            "/nonexistent-dir) or write elsewhere");
  // A file where a folder should be is named as such, not as a missing folder (was: "the folder
  // file.json does not exist"), however deep below it the output is.
  { std::ofstream(dir + "/file.json") << "{}"; }
  EXPECT_EQ(refusal({{"--out", dir + "/file.json/r.json"}}),
            "--out " + dir + "/file.json/r.json: " + dir + "/file.json is a file, not a folder; give a path whose "
            "folders exist");
  EXPECT_NE(refusal({{"--out", dir + "/file.json/a/b/r.json"}}).find(dir + "/file.json is a file, not a folder"),
            std::string::npos);
  std::filesystem::remove(dir + "/file.json");
  EXPECT_NE(refusal({{"--out", "/proc/r.json"}}).find("--out /proc/r.json: cannot write in /proc"), std::string::npos);
  EXPECT_EQ(refusal({{"--out", dir + "/r.json"}, {"--csv", dir + "/sub/../r.json"}}),
            "--out " + dir + "/r.json and --csv " + dir + "/sub/../r.json name the same file: the second would "
            "replace the first; give each its own file");
  EXPECT_NE(refusal({{"--out", dir + "/in.json"}}, {{"RESULT", dir + "/./in.json"}})
                .find("this is the RESULT file this command reads"),
            std::string::npos);
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_TRUE(e.is_directory()) << "a probe was left behind: " << e.path();
  std::filesystem::remove_all(dir);
}
