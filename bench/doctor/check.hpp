// One check of `arbench doctor`: what it read, why that matters, its verdict and the exact fix,
// per item (a bridge, a GPU, a pair) and for the check as a whole. Value types and the verdict
// arithmetic only; the checks fill them (checks.hpp), report.hpp prints them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace arbench::doctor {

// In rising order of what it does to the exit code: a check that could not read anything says so
// and leaves the exit code at 0; "slows" is 4 and "may hang" 5 (docs/doctor.md).
enum class Verdict : std::uint8_t { ok, unknown, slows, may_hang };

// "ok", "could not read", "slows", "may hang".
const char* verdict_name(Verdict v);

inline constexpr int kExitSlows = 4;    // something on this box slows PCIe all-reduce
inline constexpr int kExitMayHang = 5;  // something on this box may make it hang (or crash)

struct Item {
  std::string subject;  // "0000:40:01.1 (root port)", "GPU0-GPU1", "NCCL 2.26.2"
  Verdict verdict = Verdict::ok;
  std::string read;     // the value read, as the user would see it with the tool named in the docs
  std::string fix;      // empty when nothing is to be done
};

struct Check {
  std::string id;     // "acs", "iommu", ...: the JSON key and the table's first column
  std::string title;  // "ACS on the GPUs' bridges"
  std::string why;    // why it matters (one or two sentences)
  std::string summary;  // what was read, in one line (the report's table)
  std::vector<Item> items;
  nlohmann::json data = nlohmann::json::object();  // the values read, for programs

  Check() = default;
  Check(std::string id_, std::string title_, std::string why_)
      : id(std::move(id_)), title(std::move(title_)), why(std::move(why_)) {}

  void add(std::string subject, Verdict v, std::string read, std::string fix = {}) {
    items.push_back({std::move(subject), v, std::move(read), std::move(fix)});
  }
  // The worst item's verdict; a check with no item could not read anything.
  Verdict verdict() const;
};

Verdict worst(const std::vector<Check>& checks);
// 0, kExitSlows or kExitMayHang for the worst verdict.
int exit_code(Verdict worst);

}  // namespace arbench::doctor
