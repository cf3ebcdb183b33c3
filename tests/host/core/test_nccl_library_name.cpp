// The names of NCCL builds measured side by side (arbench/core/nccl_library_name.hpp): what a
// --nccl-lib value may be, the labels, and the variant names that carry them, which the case key,
// compare, tune and settings all read back.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "arbench/core/case.hpp"
#include "arbench/core/nccl_library_name.hpp"

using namespace arbench;

TEST(NcclLibraryName, LabelsAreShortWordsOfVersionCharacters) {
  for (const char* ok : {"2.29.2", "new", "nccl_2.28-cu13", "a", "v2+fix", "0123456789abcdefghijklmnopqrstuv"})
    EXPECT_EQ(nccl_label_problem(ok), "") << ok;
  EXPECT_NE(nccl_label_problem(""), "");
  EXPECT_NE(nccl_label_problem("-new").find("does not start with a letter or a digit"), std::string::npos);
  EXPECT_NE(nccl_label_problem("a/b").find("has '/'"), std::string::npos);  // would split the case key
  EXPECT_NE(nccl_label_problem("a[b").find("has '['"), std::string::npos);  // would open a configuration
  EXPECT_NE(nccl_label_problem("a@b").find("has '@'"), std::string::npos);
  EXPECT_NE(nccl_label_problem("a,b").find("has ','"), std::string::npos);  // --variants is a list
  EXPECT_NE(nccl_label_problem("a*").find("has '*'"), std::string::npos);   // --variants takes globs
  EXPECT_NE(nccl_label_problem(std::string(33, 'a')).find("longer than 32"), std::string::npos);
}

TEST(NcclLibraryName, ASpecIsNameEqualsPathOrAPath) {
  std::string why;
  auto s = parse_nccl_library_spec("new=/opt/nccl/lib/libnccl.so.2", &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(s->name, "new");
  EXPECT_EQ(s->path, "/opt/nccl/lib/libnccl.so.2");
  s = parse_nccl_library_spec("/opt/nccl/lib/libnccl.so.2");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "");
  EXPECT_EQ(s->path, "/opt/nccl/lib/libnccl.so.2");
  s = parse_nccl_library_spec("/opt/a=b/libnccl.so.2");  // a '/' before the '=': all of it is the path
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "");
  EXPECT_EQ(s->path, "/opt/a=b/libnccl.so.2");
  EXPECT_FALSE(parse_nccl_library_spec("", &why));
  EXPECT_EQ(why, "an empty path");
  EXPECT_FALSE(parse_nccl_library_spec("new=", &why));
  EXPECT_EQ(why, "NAME=new without a PATH");
  EXPECT_FALSE(parse_nccl_library_spec("my lib=/x.so", &why));
  EXPECT_NE(why.find("NAME 'my lib' has ' '"), std::string::npos) << why;
}

TEST(NcclLibraryName, TheLabelSitsBetweenTheNameAndItsConfiguration) {
  EXPECT_EQ(with_library("nccl", "2.29.2"), "nccl@2.29.2");
  EXPECT_EQ(with_library("nccl-symm", "new"), "nccl-symm@new");
  EXPECT_EQ(with_library("nccl[ring/ll/ch:4]", "2.29.2"), "nccl@2.29.2[ring/ll/ch:4]");
  EXPECT_EQ(with_library("nccl[ring/ll]", ""), "nccl[ring/ll]");  // the default library: unchanged
  for (const char* base : {"nccl", "nccl-symm", "nccl[ring/ll]", "nccl[tree/simple/ch:16]"})
    for (const char* label : {"2.29.2", "new", ""}) {
      const LibraryVariant back = split_library(with_library(base, label));
      EXPECT_EQ(back.variant, base) << base << " " << label;
      EXPECT_EQ(back.library, label) << base << " " << label;
    }
  // A name without '@' before its configuration is the default library's, whatever follows.
  EXPECT_EQ(split_library("oneshot-push").library, "");
  EXPECT_EQ(split_library("nccl[weird@cfg]").library, "");
}

// The case key of a side-by-side library's case parses back (compare, tune, settings, plot and the
// nightly all read cases by name), and its variant splits into the default's name and the label.
TEST(NcclLibraryName, CaseKeysOfALibraryRoundTrip) {
  const Case cases[] = {
      {"nccl@2.29.2", Family::allreduce, DType::bf16, 8, 65536, 0, 0, false},
      {"nccl@2.29.2[ring/ll]", Family::allreduce, DType::fp16, 4, 4096, 0, 0, false},
      {"nccl-symm@new", Family::allreduce, DType::bf16, 2, 1024, 0, 0, true, true},
  };
  for (const Case& c : cases) {
    std::string why;
    const auto back = Case::parse(c.name(), &why);
    ASSERT_TRUE(back) << c.name() << ": " << why;
    EXPECT_EQ(*back, c);
  }
  EXPECT_EQ(cases[1].name(), "allreduce/nccl@2.29.2[ring/ll]/fp16/gpus:4/bytes:4096");
  EXPECT_EQ(split_library(cases[1].variant).variant, "nccl[ring/ll]");
}

TEST(NcclLibraryName, WhatAFileIsBeforeItIsLoaded) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "arbench_library_file_problem";
  fs::create_directories(dir);
  std::ofstream(dir / "notes.txt") << "not a library\n";
  std::ofstream(dir / "elf.so", std::ios::binary) << "\x7f" "ELF" << std::string(60, '\0');
  EXPECT_NE(library_file_problem((dir / "missing.so").string()).find("no such file"), std::string::npos);
  EXPECT_NE(library_file_problem(dir.string()).find("a folder, not a library"), std::string::npos);
  EXPECT_NE(library_file_problem((dir / "notes.txt").string()).find("not a shared library (no ELF header"),
            std::string::npos);
  EXPECT_EQ(library_file_problem((dir / "elf.so").string()), "");  // what it holds, only loading tells
  EXPECT_NE(library_file_problem("/dev/null").find("not a regular file"), std::string::npos);
  fs::remove_all(dir);
}
