// Every file input of every subcommand (positionals and options `--help` shows as FILE), given
// each kind of file it must not accept: a folder, a binary file, JSON of another schema, and
// another arbench command's output. Each is exit 2 naming the file and what was expected (was:
// `compare DIR x.json` said "the file is empty", a binary file an empty message).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "help_options.hpp"
#include "per_subcommand.hpp"
#include "probe_bases.hpp"

namespace {

// Each subcommand's command line with its inputs as {NAME}; an option input is dropped (with its
// {--name}) when it is not the one probed. A subcommand with a file input needs a line here.
const std::map<std::string, std::string> kTemplates = {
    {"compare", "compare {BASE} {NEW}"},
    {"tune", "tune {RESULT}"},
    {"step", "step {RESULT} --model llama3-70b --gpus 8 --batch 1 --draft 0"},
    {"run", "run --backend host --gpus 2 -b 1K -e 1K --variants reference --warmup 0 --pipelined-ops 0 -q {--links} "
            "{--tuner-table} {--doctor}"},
    {"list", "list --backend host --gpus 2 -b 1K -e 1K --variants reference {--links} {--tuner-table}"},
    {"settings", "settings {RESULT} --out-dir /tmp/arbench-kinds-settings"},
    {"topo", "topo --sysfs-root " ARBENCH_SOURCE_DIR "/tests/fixtures/sysfs/one_switch_four_gpus"},
    {"doctor", "doctor --no-probe"},
};

struct Kind {
  std::string name, path, says;  // says: the message must contain it (besides the path and "expected")
};

std::string scratch() {
  const std::string d = testing::TempDir() + "arbench-kinds-" + std::to_string(::getpid());
  std::filesystem::create_directories(d + "/a-folder.json");
  std::ofstream(d + "/binary.json", std::ios::binary) << std::string("\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe", 14);
  std::ofstream(d + "/other-schema.json") << "{\"name\": \"weights\", \"values\": [1, 2, 3]}\n";
  return d;
}

// The wrong kinds for an input of `sub` named `input`.
std::vector<Kind> wrong_kinds(const std::string& dir, const std::string& input) {
  const bool links = input == "--links";
  return {{"a folder", dir + "/a-folder.json", "a folder"},
          {"a binary file", dir + "/binary.json", "a binary file"},
          {"JSON of another schema", dir + "/other-schema.json", "expected"},
          {"another command's output",
           links ? sample_result() : std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/topo/loaded_4gpu.json",
           links ? "this is a result JSON written by `arbench run`" : "this is a topology file written by `arbench topo --out`"}};
}

std::string fill(std::string cmd, const std::string& probed, const std::string& path) {
  for (std::size_t at = cmd.find('{'); at != std::string::npos; at = cmd.find('{')) {
    const std::size_t end = cmd.find('}', at);
    const std::string name = cmd.substr(at + 1, end - at - 1);
    std::string value = name == probed ? path : sample_result();
    if (name.rfind("--", 0) == 0) value = name == probed ? name + " " + path : "";
    cmd.replace(at, end - at + 1, value);
  }
  return cmd;
}

void probe_inputs(const std::string& sub) {
  const std::string dir = scratch();
  int inputs = 0;
  for (const HelpOption& o : help_options(sub)) {
    if (o.placeholder != "FILE") continue;
    ++inputs;
    ASSERT_TRUE(kTemplates.count(sub) && kTemplates.at(sub).find("{" + o.name() + "}") != std::string::npos)
        << "arbench " << sub << " " << o.name() << ": a file input without a line in kTemplates";
    for (const Kind& k : wrong_kinds(dir, o.name())) {
      const std::string cmd = fill(kTemplates.at(sub), o.name(), k.path);
      const CliResult r = run_arbench(cmd);
      EXPECT_EQ(r.exit_code, 2) << k.name << ": arbench " << cmd << "\n" << r.output;
      EXPECT_NE(r.output.find(k.path), std::string::npos) << k.name << ": name the file\n" << r.output;
      EXPECT_NE(r.output.find("expected"), std::string::npos) << k.name << ": say what was expected\n" << r.output;
      EXPECT_NE(r.output.find(k.says), std::string::npos) << k.name << ": wanted '" << k.says << "'\n" << r.output;
      EXPECT_EQ(r.output.find("cases run"), std::string::npos) << "a case ran:\n" << r.output;
    }
  }
  const std::map<std::string, int> expected = {{"compare", 2}, {"tune", 1}, {"step", 1}, {"run", 3}, {"list", 2}, {"settings", 1}};
  EXPECT_EQ(inputs, expected.count(sub) ? expected.at(sub) : inputs) << sub;
  std::filesystem::remove_all(dir);
}

}  // namespace

TEST(CliFileKinds, EverySubcommandIsCovered) {
  for (const std::string& sub : help_subcommands()) EXPECT_TRUE(kTemplates.count(sub)) << "add `" << sub << "` to kTemplates";
}
[[maybe_unused]] const bool kPerSubcommand =
    per_subcommand("CliFileKinds", probe_inputs, {"compare", "tune", "step", "run", "list", "topo", "settings", "doctor"});
