// Helpers of the doctor's check tests: an item of a check by the start of its subject.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "doctor/check.hpp"

namespace arbench::doctor {

inline const Item* item(const Check& c, const std::string& subject_start) {
  for (const Item& i : c.items)
    if (i.subject.rfind(subject_start, 0) == 0) return &i;
  return nullptr;
}

inline std::string dump(const Check& c) {
  std::string s = c.id + " (" + verdict_name(c.verdict()) + "): " + c.summary + "\n";
  for (const Item& i : c.items) s += "  " + std::string(verdict_name(i.verdict)) + " | " + i.subject + " | " + i.read + " | " + i.fix + "\n";
  return s;
}

inline bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

// A docs page's section between the lines `begin` and `end` is `generated` (the code's table);
// ARBENCH_UPDATE_GOLDEN=1 rewrites it, for a deliberate change: review the diff.
inline void expect_generated_section(const std::string& page, const std::string& begin, const std::string& end,
                                     const std::string& generated) {
  const std::string path = std::string(ARBENCH_SOURCE_DIR) + "/" + page;
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  const std::size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << path << " lacks the line " << begin;
  ASSERT_NE(e, std::string::npos) << path << " lacks the line " << end;
  const std::size_t from = b + begin.size();
  if (std::getenv("ARBENCH_UPDATE_GOLDEN") != nullptr) {
    doc.replace(from, e - from, generated);
    std::ofstream(path, std::ios::binary) << doc;
    return;
  }
  EXPECT_EQ(doc.substr(from, e - from), generated)
      << path << "'s table differs from the code's; rerun with ARBENCH_UPDATE_GOLDEN=1 and review the diff";
}

}  // namespace arbench::doctor
