// Helpers of the doctor's check tests: an item of a check by the start of its subject.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "doctor/check.hpp"
#include "tests/host/text_checks.hpp"

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

// docs/doctor.md's generated tables: tests/host/text_checks.hpp.
using test::expect_generated_section;

}  // namespace arbench::doctor
