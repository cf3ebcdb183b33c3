// Paths of the sysfs fixture trees (tests/fixtures/sysfs/, made by make_fixtures.py).
#pragma once

#include <string>

namespace arbench::test {

inline std::string sysfs_fixture(const std::string& name) {
  return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/sysfs/" + name;
}

}  // namespace arbench::test
