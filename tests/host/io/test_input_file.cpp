// bench/io/input_file: every way a named JSON input can be wrong gets its own message.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "io/input_file.hpp"
#include "tests/host/thrown.hpp"

using namespace arbench;

namespace {

std::string temp(const std::string& name, const std::string& content) {
  const std::string p = testing::TempDir() + "arbench-io-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::string problem(const std::string& path) {
  return test::thrown_message<UsageError>([&] { read_json_input(path, "a result"); });
}

}  // namespace

TEST(InputFile, EachWrongKindIsNamed) {
  EXPECT_EQ(problem("/nonexistent/r.json"), "/nonexistent/r.json: no such file; expected a result");
  EXPECT_EQ(problem(testing::TempDir()), testing::TempDir() + ": a folder, not a file; expected a result");
  EXPECT_EQ(problem("/dev/null"), "/dev/null: not a regular file (a device, a pipe or a socket); expected a result");
  const std::string empty = temp("empty.json", " \n");
  EXPECT_EQ(problem(empty), empty + ": the file is empty; expected a result");
  const std::string elf = temp("elf.json", std::string("\x7f" "ELF\0\0", 6));
  EXPECT_EQ(problem(elf), elf + ": a binary file, not JSON text; expected a result");
  const std::string latin1 = temp("latin1.json", "{\"a\": \"\xe9t\xe9\"}");
  EXPECT_EQ(problem(latin1), latin1 + ": a binary file, not JSON text; expected a result");
  const std::string cut = temp("cut.json", "{\"a\": [1, 2");
  EXPECT_NE(problem(cut).find(cut + ": not valid JSON ("), std::string::npos) << problem(cut);
  const std::string utf8 = temp("utf8.json", "{\"a\": \"\xc2\xb5s\"}");
  EXPECT_EQ(problem(utf8), "");
  for (const std::string& p : {empty, elf, latin1, cut, utf8}) std::remove(p.c_str());
}

TEST(InputFile, ArbenchDocumentsAreRecognised) {
  using nlohmann::json;
  EXPECT_EQ(describe_document(json{{"arbench", json::object()}}), "a result JSON written by `arbench run`");
  EXPECT_EQ(describe_document(json{{"schema", "arbench-topo/1"}}), "a topology file written by `arbench topo --out`");
  EXPECT_EQ(describe_document(json{{"schema", "arbench-dispatch-table"}}), "a dispatch table written by `arbench tune --out`");
  EXPECT_EQ(describe_document(json{{"schema", "arbench-step"}}), "a step projection written by `arbench step --out`");
  EXPECT_EQ(describe_document(json{{"schema", "arbench-compare"}}),
            "a comparison written by `arbench compare --format json`");
  EXPECT_EQ(describe_document(json{{"weights", 1}}), "");
  EXPECT_EQ(wrong_document("t.json", json{{"schema", "arbench-step"}}, "a links file", "no links"),
            "t.json: this is a step projection written by `arbench step --out`; expected a links file");
  EXPECT_EQ(wrong_document("w.json", json{{"weights", 1}}, "a links file", "no links"),
            "w.json: no links; expected a links file");
}
