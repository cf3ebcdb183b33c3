// `arbench settings --engine / --nccl / --python`: the versions the user's engine runs. --python is
// driven with fake interpreters made here: one that prints a known answer, one that is python3
// with a made-up environment (distribution metadata and a stand-in torch module: the real probe
// script reads them), and broken ones. A missing, folder or non-executable path is exit 2; an
// interpreter that runs but fails, hangs or answers nonsense is exit 3; each names the path.
// The versions reach the settings: with the engine's NCCL another minor than the fixture's
// (2.28.9), the tuner table is `try`, saying why.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/cli/cli_util.hpp"

namespace {

namespace fs = std::filesystem;

bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

class SettingsVersionsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("arbench_settings_versions_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // An executable script at dir_/name.
  std::string script(const std::string& name, const std::string& body, bool executable = true) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << body;
    ::chmod(p.c_str(), executable ? 0755 : 0644);
    return p.string();
  }
  // A file in the fake environment's site folder.
  void site_file(const std::string& rel, const std::string& text) {
    const fs::path p = dir_ / "site" / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void dist(const std::string& name, const std::string& version) {
    std::string folder = name;
    for (char& c : folder) c = c == '-' ? '_' : c;
    site_file(folder + "-" + version + ".dist-info/METADATA",
              "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n");
  }
  std::string settings(const std::string& args) {
    return "settings " + std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/settings/pcie8-crossovers.json --out-dir " +
           (dir_ / "out").string() + " " + args;
  }

  std::string read_json() const {
    std::ifstream in(dir_ / "out" / "settings.json");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  fs::path dir_;
};

TEST_F(SettingsVersionsCli, AFakeInterpreterAnswerIsReadAndReachesTheSettings) {
  const std::string py = script("python", R"(#!/bin/sh
echo 'Python noise on stdout before the answer'
echo '{"arbench_python_probe": 1, "python": "3.12.3", "packages": {"vllm": "0.11.0", "torch": "2.9.0+cu128", "flashinfer": "0.4.1"}, "nccl": "2.27.7", "nccl_note": ""}'
)");
  const CliResult r = run_arbench(settings("--python " + py));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "python " + py + " (Python 3.12.3): vllm 0.11.0 flashinfer 0.4.1 torch 2.9.0+cu128, NCCL 2.27.7"))
      << r.output;
  // The reason, as settings.json keeps it (the text output wraps it): NCCL 2.27 does not load
  // arbench's plugin (tuner v5/v6) at all, and the line names where that NCCL version came from.
  EXPECT_TRUE(has(read_json(), "NCCL 2.27.7 (python " + py + "), the one your engine loads, looks up tuner interfaces "
                                   "v4, v3 and v2 only"))
      << read_json();
  // What is typed wins over what the interpreter says.
  const CliResult typed = run_arbench(settings("--python " + py + " --nccl 2.28.3 --engine vllm=0.12.0"));
  ASSERT_EQ(typed.exit_code, 0) << typed.output;
  EXPECT_TRUE(has(typed.output, "vllm 0.12.0 flashinfer 0.4.1 torch 2.9.0+cu128, NCCL 2.28.3")) << typed.output;
  EXPECT_FALSE(has(read_json(), "not `set`: measured with NCCL")) << read_json();
}

TEST_F(SettingsVersionsCli, ThePythonProbeReadsMetadataAndTorchsNccl) {
  ASSERT_EQ(run_shell("command -v python3").exit_code, 0) << "these tests need python3 (scripts/ need it too)";
  dist("vllm", "0.11.0");
  dist("sglang", "0.5.3");
  dist("tensorrt-llm", "1.0.0rc3");
  dist("flashinfer-python", "0.4.1");
  dist("torch", "2.9.0+cu128");
  // Stand-ins: importing vllm would fail the probe (it must read metadata only); torch answers.
  site_file("vllm/__init__.py", "raise RuntimeError('the probe must not import vllm')\n");
  site_file("torch/__init__.py",
            "class _Nccl:\n    @staticmethod\n    def version():\n        return (2, 27, 7)\n"
            "class cuda:\n    nccl = _Nccl\n");
  const std::string py = script("python", "#!/bin/sh\nPYTHONPATH='" + (dir_ / "site").string() + "' exec python3 \"$@\"\n");
  const CliResult r = run_arbench(settings("--python " + py));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, ": vllm 0.11.0 sglang 0.5.3 tensorrt_llm 1.0.0rc3 flashinfer 0.4.1 torch 2.9.0+cu128, NCCL 2.27.7"))
      << r.output;

  // Without torch: the NCCL is unknown and the output says so (and how to give it).
  fs::remove_all(dir_ / "site" / "torch");
  fs::remove_all(dir_ / "site" / "torch-2.9.0+cu128.dist-info");
  const CliResult no_torch = run_arbench(settings("--python " + py));
  ASSERT_EQ(no_torch.exit_code, 0) << no_torch.output;
  EXPECT_TRUE(has(no_torch.output, "the NCCL torch loads is unknown: torch is not installed there")) << no_torch.output;
  EXPECT_TRUE(has(no_torch.output, "--nccl X.Y.Z")) << no_torch.output;
  // A bare name is looked up on PATH, as a shell would: this machine's python3 (whatever it has).
  const CliResult bare = run_arbench(settings("--python python3"));
  ASSERT_EQ(bare.exit_code, 0) << bare.output;
  EXPECT_TRUE(has(bare.output, "arbench settings: python /")) << bare.output;
  // A torch whose NCCL query fails (no CUDA build): said, not fatal.
  dist("torch", "2.9.0");
  site_file("torch/__init__.py", "class _N:\n    @staticmethod\n    def version():\n        raise RuntimeError('no NCCL')\n"
                                 "class cuda:\n    nccl = _N\n");
  const CliResult failing = run_arbench(settings("--python " + py));
  ASSERT_EQ(failing.exit_code, 0) << failing.output;
  EXPECT_TRUE(has(failing.output, "torch.cuda.nccl.version() failed: RuntimeError: no NCCL")) << failing.output;
}

TEST_F(SettingsVersionsCli, AMissingPathIsUsageABrokenInterpreterIsEnvironment) {
  const std::string missing = (dir_ / "no-such-python").string();
  const CliResult r = run_arbench(settings("--python " + missing));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--python " + missing + ": no such file")) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out")) << "nothing is written before the values are checked";

  const CliResult folder = run_arbench(settings("--python " + dir_.string()));
  EXPECT_EQ(folder.exit_code, 2) << folder.output;
  EXPECT_TRUE(has(folder.output, "--python " + dir_.string() + ": not a file")) << folder.output;

  const std::string plain = script("not-executable", "#!/bin/sh\n", false);
  const CliResult noexec = run_arbench(settings("--python " + plain));
  EXPECT_EQ(noexec.exit_code, 2) << noexec.output;
  EXPECT_TRUE(has(noexec.output, "--python " + plain + ": not executable")) << noexec.output;

  const std::string fails = script("fails", "#!/bin/sh\necho 'ImportError: broken venv' >&2\nexit 1\n");
  const CliResult f = run_arbench(settings("--python " + fails));
  EXPECT_EQ(f.exit_code, 3) << f.output;
  EXPECT_TRUE(has(f.output, "--python " + fails + ": it exited with 1 running the version probe")) << f.output;
  EXPECT_TRUE(has(f.output, "ImportError: broken venv")) << f.output;

  const std::string nonsense = script("nonsense", "#!/bin/sh\necho 'Python 2.7.18'\n");
  const CliResult n = run_arbench(settings("--python " + nonsense));
  EXPECT_EQ(n.exit_code, 3) << n.output;
  EXPECT_TRUE(has(n.output, "--python " + nonsense + ": its answer is not the version probe's")) << n.output;

  const std::string hangs = script("hangs", "#!/bin/sh\nsleep 30\n");
  const auto start = std::chrono::steady_clock::now();
  const CliResult h = run_arbench(settings("--python " + hangs + " --python-timeout 0.5"));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(h.exit_code, 3) << h.output;
  EXPECT_TRUE(has(h.output, "--python " + hangs + ": no answer within 0.5 s")) << h.output;
  EXPECT_LT(took, 20.0) << "the bound did not stop the hanging interpreter (its sleep is 30 s)";
}

TEST_F(SettingsVersionsCli, EngineAndNcclValuesAreCheckedBeforeAnyWork) {
  const std::pair<std::string, std::string> cases[] = {
      {"--engine vllm", "--engine: 'vllm' is not NAME=VERSION"},
      {"--engine vllm=", "--engine: 'vllm=': '' is not a release number"},
      {"--engine vllm=nan", "--engine: 'vllm=nan': 'nan' is not a release number"},
      {"--engine vllm=1e300", "'1e300' is not a release number"},
      {"--engine vllm=-1", "'-1' is not a release number"},
      {"--engine llama=1.0", "unknown name 'llama'; names: vllm, sglang, tensorrt_llm, flashinfer, torch"},
      {"--engine vllm=0.11.0,vllm=0.12.0", "--engine: vllm is given twice"},
      {"--engine vllm=0.11.0,vllm=0.11.0", "--engine: vllm=0.11.0 is listed twice"},
      {"--engine vllm=0.11.0,,torch=2.9.0", "has an empty item"},
      {"--nccl 2", "--nccl: '2' is not an NCCL version"},
      {"--nccl 2.27.7rc1", "'2.27.7rc1' is not an NCCL version"},
      {"--nccl inf", "'inf' is not an NCCL version"},
      {"--nccl 1.3.0", "NCCL releases in use are 2.x"},
      {"--python-timeout 0", "--python-timeout: 0 is out of range"},
      {"--python-timeout nan", "--python-timeout: nan is not a number"},
      {"--python ''", "--python: an empty value"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run_arbench(settings(args));
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_TRUE(has(r.output, message)) << args << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "out")) << args << ": nothing is written before the values are checked";
  }
  const CliResult ok = run_arbench(settings("--engine vllm=0.11.0,sglang=0.5.3rc0,torch=2.9.1+cu130 --nccl 2.28"));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

}  // namespace
