// Every list option of every subcommand (`--help` shows "N,..."), probed with an empty list, an
// empty item and a value listed twice: each is exit 2 before any work, naming the option (was:
// `--gpus 2,,4` ran 2 and 4, `--gpus ''` said "0 is not a GPU count", `--skew 0,0` wrote duplicate
// case names that compare and tune then refused). A valid item comes from the option's declared
// range or choices; a list of free names needs one in kValidItem.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "help_options.hpp"
#include "per_subcommand.hpp"
#include "probe_bases.hpp"

namespace {

// Lists whose items are names (no range, no choices in --help): a value that exists.
const std::map<std::string, std::string> kValidItem = {
    {"--variants", "ring"}, {"--model", "llama3-70b"}, {"--engine", "vllm=0.11.0"}, {"--between", "nccl"}};

std::string valid_item(const HelpOption& o) {
  if (const auto r = declared_range(o)) {
    const double v = r->lo_open ? r->lo + 1 : r->lo;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }
  const std::string p = o.placeholder.substr(0, o.placeholder.size() - 4);
  if (p.find('|') != std::string::npos) return p.substr(0, p.find('|'));
  const auto it = kValidItem.find(o.name());
  return it == kValidItem.end() ? std::string() : it->second;
}

void expect_refused(const std::string& sub, const HelpOption& o, const std::string& value, const std::string& why) {
  const std::string cmd = probe_base(sub, o.name()).with(o.name(), value);
  const CliResult r = run_arbench(cmd);
  EXPECT_EQ(r.exit_code, 2) << "arbench " << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find(o.name() + ": "), std::string::npos) << "arbench " << cmd << ": name the option\n" << r.output;
  EXPECT_NE(r.output.find(why), std::string::npos) << "arbench " << cmd << ": wanted '" << why << "'\n" << r.output;
  EXPECT_EQ(r.output.find("cases run"), std::string::npos) << "a case ran:\n" << r.output;
}

void probe_lists(const std::string& sub) {
  int lists = 0;
  for (const HelpOption& o : help_options(sub)) {
    if (!o.is_list()) continue;
    ++lists;
    const std::string x = valid_item(o);
    ASSERT_FALSE(x.empty()) << "arbench " << sub << " " << o.name() << " " << o.placeholder
                            << ": no valid item known; add one to kValidItem in this test";
    expect_refused(sub, o, "''", "an empty list");
    expect_refused(sub, o, x + ",", "has an empty item");
    expect_refused(sub, o, "," + x, "has an empty item");
    expect_refused(sub, o, x + ",," + x, "has an empty item");
    expect_refused(sub, o, x + "," + x, x + " is listed twice");
    // Given twice, the values join: the duplicate is across the two.
    expect_refused(sub, o, x + " " + o.name() + " " + x, x + " is listed twice");
  }
  EXPECT_GT(lists, 0) << "arbench " << sub << ": the probe probed nothing (no list option seen)";
  if (sub == "run" || sub == "list" || sub == "step") {
    EXPECT_GE(lists, 4) << sub;
  }
}

}  // namespace

[[maybe_unused]] const bool kPerSubcommand =
    per_subcommand("CliLists", probe_lists, {"run", "list", "compare", "step", "settings"});

// Every subcommand with a list option is probed (was: `settings --gpus` was not), and a probe
// that finds no list fails (was: compare, tune and topo "passed" having probed nothing).
TEST(CliLists, EverySubcommandWithAListIsProbed) {
  const std::set<std::string>& probed = per_subcommand_registry()["CliLists"];
  for (const std::string& sub : help_subcommands()) {
    bool has_list = false;
    for (const HelpOption& o : help_options(sub)) has_list = has_list || o.is_list();
    EXPECT_EQ(probed.count(sub) > 0, has_list) << "`arbench " << sub << "`: " << (has_list ? "has" : "has no")
                                               << " list option; CliLists' list of subcommands must say so";
  }
}

TEST(CliLists, AProbeOfNothingFails) {
  EXPECT_NONFATAL_FAILURE(probe_lists("tune"), "the probe probed nothing");
}

// A list with each value once runs, in the order given.
TEST(CliLists, ValidListsRun) {
  const CliResult r = run_arbench("list --backend host --variants reference -b 1K -e 1K --gpus 4,2 --skew 0,3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("gpus:4/bytes:1024\n"), std::string::npos) << r.output;
  EXPECT_LT(r.output.find("gpus:4/bytes:1024/skew:3"), r.output.find("gpus:2/bytes:1024\n")) << r.output;
}
