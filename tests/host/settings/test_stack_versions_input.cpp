// The versions as users type them (--engine NAME=VERSION, --nccl X.Y.Z) and as an engine's Python
// interpreter reports them (the --python probe's answer): bench/settings/catalogue/stack_versions.hpp and
// python_probe.hpp. The CLI side (exit codes, fake interpreters) is tests/cli/commands/.
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "settings/catalogue/python_probe.hpp"
#include "settings/catalogue/stack_versions.hpp"

namespace arbench {
namespace {

TEST(StackVersionsInput, ReleasesAsPipWritesThem) {
  for (const char* ok : {"0.11.0", "1.0.0rc3", "2.9.0+cu128", "0.5.3.post1", "0.6.0.dev0", "1.2a1", "2.28"})
    EXPECT_TRUE(parse_release(ok)) << ok;
  for (const char* bad : {"1e300", "0.11.0-foo", "nan", "inf", "-1", "0", "", "0.11.0 ", "1.0rc", "2.9.0+"})
    EXPECT_FALSE(parse_release(bad)) << bad;
}

TEST(StackVersionsInput, EngineItems) {
  std::string name;
  Version v;
  EXPECT_EQ(parse_engine_item("tensorrt_llm=1.0.0rc3", name, v), "");
  EXPECT_EQ(name, "tensorrt_llm");
  EXPECT_EQ(v.text(), "1.0.0rc3");
  EXPECT_NE(parse_engine_item("vllm", name, v).find("'vllm' is not NAME=VERSION"), std::string::npos);
  EXPECT_NE(parse_engine_item("trtllm=1.0", name, v).find("unknown name 'trtllm'; names: vllm, sglang, tensorrt_llm"),
            std::string::npos);
  EXPECT_NE(parse_engine_item("vllm=latest", name, v).find("'latest' is not a release number"), std::string::npos);
}

TEST(StackVersionsInput, NcclVersions) {
  EXPECT_EQ(nccl_version_problem("2.27.7"), "");
  EXPECT_EQ(nccl_version_problem("2.28"), "");
  for (const char* bad : {"2", "2.27.7rc1", "2.27.7+cuda12", "nan", "x", ""})
    EXPECT_NE(nccl_version_problem(bad), "") << bad;
  EXPECT_NE(nccl_version_problem("1.3.0").find("2.x"), std::string::npos);
}

TEST(PythonProbeAnswer, IsReadWithWhatCouldNotBe) {
  const PythonStack s = parse_python_probe(
      "some warning\n{\"arbench_python_probe\": 1, \"python\": \"3.11.9\", \"packages\": {\"vllm\": \"0.11.0\", "
      "\"torch\": \"2.9.0+cu128\", \"sglang\": \"not-a-version\", \"numpy\": \"2.0.0\"}, \"nccl\": \"2.27.7\", "
      "\"nccl_note\": \"\"}\n",
      "/venv/bin/python");
  EXPECT_EQ(s.python, "3.11.9");
  EXPECT_EQ(s.stack.source, "python /venv/bin/python");
  ASSERT_TRUE(s.stack.engine("vllm"));
  EXPECT_EQ(s.stack.engine("vllm")->text(), "0.11.0");
  EXPECT_EQ(s.stack.engine("torch")->tail, "+cu128");
  EXPECT_FALSE(s.stack.engine("sglang"));  // not a release: left out, and said
  EXPECT_EQ(s.stack.engines.count("numpy"), 0u);
  ASSERT_TRUE(s.stack.nccl);
  EXPECT_EQ(s.stack.nccl->text(), "2.27.7");
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("sglang reports version 'not-a-version'"), std::string::npos);

  const PythonStack no_nccl = parse_python_probe(
      "{\"arbench_python_probe\": 1, \"packages\": {}, \"nccl\": null, \"nccl_note\": \"torch is not installed there\"}",
      "/p");
  EXPECT_FALSE(no_nccl.stack.nccl);
  ASSERT_EQ(no_nccl.notes.size(), 1u);
  EXPECT_NE(no_nccl.notes[0].find("the NCCL torch loads is unknown: torch is not installed there (give it with --nccl"),
            std::string::npos);
}

TEST(PythonProbeAnswer, AnythingElseIsAnEnvironmentErrorNamingThePath) {
  for (const char* bad : {"", "Python 3.12.3", "{\"packages\": {}}", "{\"arbench_python_probe\": 1, \"packages\": [1]}",
                          "{\"arbench_python_probe\": 1, \"packages\": {"}) {
    try {
      parse_python_probe(bad, "/opt/py");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitEnvironment) << bad;
      EXPECT_NE(std::string(e.what()).find("--python /opt/py: its answer is not the version probe's"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace arbench
