// What the side-by-side loader tests share: the installed libnccl (found at configure time, as
// cmake/FindNCCL.cmake finds it: the CUDA toolkit's `lib` folder beside `lib64`) copied to two
// paths of its own, and each check run in a child process: the loader keeps its default library
// and every library it loaded for the life of the process, and a copy loaded before the default
// would answer for the default's bare name (the point of some of the tests).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "arbench/core/errors.hpp"

namespace arbench::testing {

namespace fs = std::filesystem;

// The folder of this test binary's files: copies of the installed libnccl, stand-ins (named by the
// parent's pid, fixed before any child is forked).
inline const fs::path kLoaderDir = fs::path(::testing::TempDir()) / ("arbench_nccl_loader_" + std::to_string(getpid()));
inline const fs::path& loader_dir() { return kLoaderDir; }

// The installed libnccl copied to <dir>/a/libnccl.so.2 and <dir>/b/libnccl.so.2 (once per process;
// empty when there is no installed NCCL to copy, then the caller skips saying so).
struct InstalledCopies {
  std::string installed, a, b;
  bool ok() const { return !a.empty(); }
};
inline const InstalledCopies& installed_copies() {
  static const InstalledCopies copies = [] {
    InstalledCopies c;
    c.installed = ARBENCH_INSTALLED_NCCL;
    std::error_code ec;
    if (c.installed.empty() || !fs::is_regular_file(c.installed, ec)) return c;
    for (const char* side : {"a", "b"}) {
      const fs::path dir = loader_dir() / side;
      fs::create_directories(dir, ec);
      fs::copy_file(c.installed, dir / "libnccl.so.2", fs::copy_options::overwrite_existing, ec);  // follows the link
      if (ec) return InstalledCopies{c.installed, "", ""};
    }
    c.a = (loader_dir() / "a" / "libnccl.so.2").string();
    c.b = (loader_dir() / "b" / "libnccl.so.2").string();
    return c;
  }();
  return copies;
}

// A symbolic link <dir>/name to `target` (made anew): another path to the same file.
inline std::string link_to(const std::string& target, const std::string& name) {
  const std::string link = (loader_dir() / name).string();
  std::error_code ec;
  fs::remove(link, ec);
  fs::create_symlink(target, link);
  return link;
}

#define ARB_REQUIRE_INSTALLED_NCCL()                                                                        \
  if (!::arbench::testing::installed_copies().ok())                                                       \
  GTEST_SKIP() << "no installed libnccl to copy (ARBENCH_INSTALLED_NCCL='" ARBENCH_INSTALLED_NCCL "', the " \
                  "library cmake/FindNCCL.cmake found at configure time)"

// Runs `check` in a child process; the test fails with what it returns unless that is empty.
#define ARB_IN_CHILD(...)                                                      \
  EXPECT_EXIT(                                                                 \
      {                                                                        \
        const std::string arb_why_ = (__VA_ARGS__)();                          \
        if (!arb_why_.empty()) std::fprintf(stderr, "%s\n", arb_why_.c_str()); \
        std::exit(arb_why_.empty() ? 0 : 1);                                   \
      },                                                                       \
      ::testing::ExitedWithCode(0), "")

// The exit code and message `f` throws (0 and "" when it returns).
struct Outcome {
  int code = 0;
  std::string what;
};
inline Outcome outcome_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.exit_code(), e.what()};
  }
  return {};
}

// "" when `o` is exit `code` with `text` in its message; else what it was.
inline std::string expect_refusal(const Outcome& o, int code, const std::string& text) {
  if (o.code == code && o.what.find(text) != std::string::npos) return {};
  return "expected exit " + std::to_string(code) + " saying '" + text + "', got exit " + std::to_string(o.code) + ": " +
         o.what;
}

// Removes the copies when every test has run (not in the children: they end with std::exit).
class LoaderFilesCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(loader_dir(), ec);
  }
};

}  // namespace arbench::testing
