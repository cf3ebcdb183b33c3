// Proof that a file was written atomically: a reader that opened the old file before the write
// still reads the old contents, whole, and the path now names a different file (inode): the new
// contents were written elsewhere and renamed over the path, so no reader ever saw a partial
// file. Writing in place (truncate, then write) fails both checks. No temporary is left behind.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

namespace arbench::testing {

inline constexpr const char* kOldContents = "the previous result, which a reader may be reading\n";

struct HeldFile {
  std::unique_ptr<std::ifstream> reader;
  ino_t inode = 0;
};

// Writes kOldContents to `path` and opens it, as a reader of the previous result would.
inline HeldFile hold_old_file(const std::string& path) {
  std::ofstream(path) << kOldContents;
  HeldFile h;
  h.reader = std::make_unique<std::ifstream>(path);
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  h.inode = st.st_ino;
  return h;
}

inline void expect_replaced_by_rename(HeldFile& old, const std::string& path) {
  const std::string seen((std::istreambuf_iterator<char>(*old.reader)), std::istreambuf_iterator<char>());
  EXPECT_EQ(seen, kOldContents) << "a reader of the old file saw it change under it: written in place";
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
  EXPECT_NE(st.st_ino, old.inode) << path << " is the same file, rewritten in place, not a new one renamed over it";
  const std::filesystem::path p(path);
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path()))
    EXPECT_EQ(e.path().filename().string().rfind(p.filename().string() + ".tmp", 0), std::string::npos)
        << "temporary left behind: " << e.path();
}

}  // namespace arbench::testing
