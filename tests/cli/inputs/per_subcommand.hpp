// One test a subcommand for the probes every input test runs on each subcommand (every option,
// lists, outputs, file kinds): `per_subcommand("CliLists", probe_lists, {"run", "list"})`
// registers CliLists.Run and CliLists.List as TEST() would, so ctest still names the subcommand
// that fails, and the list of subcommands a probe covers is written once, not a TEST() a line.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <initializer_list>
#include <map>
#include <set>
#include <source_location>
#include <string>
#include <utility>

namespace per_subcommand_detail {

using Probe = void (*)(const std::string& sub);

class ProbeTest : public testing::Test {
 public:
  ProbeTest(Probe probe, std::string sub) : probe_(probe), sub_(std::move(sub)) {}
  void TestBody() override { probe_(sub_); }

 private:
  Probe probe_;
  std::string sub_;
};

}  // namespace per_subcommand_detail

// The subcommands each suite registered, for the tests that check a suite covers every
// subcommand it should (a subcommand left out is never probed, and nothing says so).
inline std::map<std::string, std::set<std::string>>& per_subcommand_registry() {
  static std::map<std::string, std::set<std::string>> registry;
  return registry;
}

// Registers Suite.<Sub> (the subcommand capitalised: "run" -> Run) running probe(sub) for each
// subcommand. Call it at namespace scope (`const bool kRegistered = per_subcommand(...)`): the
// tests must exist before main() lists or runs them. The factory returns a testing::Test*, the
// fixture TEST() uses, so the suite may hold TEST()s too.
inline bool per_subcommand(const char* suite, per_subcommand_detail::Probe probe, std::initializer_list<const char*> subs,
                           const std::source_location where = std::source_location::current()) {
  for (const char* sub : subs) {
    per_subcommand_registry()[suite].insert(sub);
    std::string name = sub;
    name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    testing::RegisterTest(suite, name.c_str(), nullptr, nullptr, where.file_name(), static_cast<int>(where.line()),
                          [probe, s = std::string(sub)]() -> testing::Test* {
                            return new per_subcommand_detail::ProbeTest(probe, s);
                          });
  }
  return true;
}
