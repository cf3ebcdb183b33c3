// Every catalogue entry carries its evidence as data (knobs.hpp, Boundary) or names the versioned
// docs page it rests on, and scripts/check_catalogue.py, which proves the boundaries against clones
// (no network here: that run is docs/engine-settings.md's), reads every entry as compiled.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "settings/catalogue/knobs.hpp"

namespace arbench {
namespace {

std::string s(std::string_view v) { return std::string(v); }

// The release number a tag stands for, as the checker reads it: "v2.27.5-1" -> "2.27.5".
std::string release_of(std::string_view tag) {
  std::string r = s(tag.substr(tag.starts_with("v") ? 1 : 0));
  if (const auto dash = r.rfind('-'); dash != std::string::npos && r.find_first_not_of("0123456789", dash + 1) == std::string::npos)
    r.erase(dash);
  return r;
}

TEST(ReleaseLines, EveryEntryHasEvidenceOrADocsPage) {
  for (const Knob& k : knobs()) {
    const std::string at = s(k.id) + (k.first.empty() ? "" : " (from " + s(k.first) + ")");
    EXPECT_TRUE(!k.evidence.empty() || !k.docs_page.empty())
        << at << ": no evidence (repository, first tag, previous tag, path, pattern) and no docs page";
    for (const Boundary& b : k.evidence) {
      for (std::string_view f : {b.repo, b.first_tag, b.path, b.pattern})
        EXPECT_FALSE(f.empty()) << at << ": a boundary with an empty field";
      for (std::string_view f : {b.repo, b.first_tag, b.prev_tag, b.path, b.pattern})
        EXPECT_EQ(f.find_first_of("\t\n"), std::string_view::npos) << at << ": a tab or newline in " << f;
      EXPECT_EQ(b.repo, k.source.repo) << at << ": evidence from another repository than the source read";
    }
    // The entry's first release is the one a boundary proves (not a neighbour's).
    if (!k.first.empty() && !k.evidence.empty()) {
      std::set<std::string> firsts;
      for (const Boundary& b : k.evidence)
        if (!b.prev_tag.empty()) firsts.insert(release_of(b.first_tag));
      EXPECT_TRUE(firsts.count(s(k.first))) << at << ": no boundary has its first release as first tag";
    }
  }
}

// What the checker's parser reads, in its --dump form, and the same from the catalogue as compiled.
std::string dump_of_catalogue() {
  std::string out;
  for (const Knob& k : knobs()) {
    out += "entry\t" + s(k.id) + "\t" + s(k.first) + "\n";
    for (const Boundary& b : k.evidence)
      out += "boundary\t" + s(b.repo) + "\t" + s(b.first_tag) + "\t" + s(b.prev_tag) + "\t" + s(b.path) + "\t" +
             s(b.pattern) + "\n";
    if (!k.docs_page.empty()) out += "docs\t" + s(k.docs_page) + "\n";
  }
  return out;
}

std::string run(const std::string& command, int* status) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  if (!pipe) return out;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe.get())) > 0;) out.append(buf.data(), n);
  *status = pclose(pipe.release());
  return out;
}

TEST(ReleaseLines, CheckerParsesEveryEntry) {
  int status = -1;
  const std::string parsed =
      run("python3 " + std::string(ARBENCH_SOURCE_DIR) + "/scripts/check_catalogue.py --dump 2>&1", &status);
  if (status != 0 && parsed.find("python3: not found") != std::string::npos) GTEST_SKIP() << "no python3";
  ASSERT_EQ(status, 0) << parsed;
  EXPECT_EQ(parsed, dump_of_catalogue()) << "scripts/check_catalogue.py reads the catalogue differently from the "
                                            "compiler: write each entry's id, first, docs_page and evidence fields as "
                                            "single string literals";
}

}  // namespace
}  // namespace arbench
