// Byte sizes with K/M/G suffixes (binary: 1K = 1024), as nccl-tests' -b/-e take them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace arbench {

// "64", "1K", "16M", "2G" (also "1KB", "1KiB"; case-insensitive suffix) → bytes.
std::optional<std::size_t> parse_size(std::string_view text);
// 1024 → "1K", 3000 → "3000", 16777216 → "16M".
std::string format_size(std::size_t bytes);
// An amount of memory for people: 512 → "512 bytes", 1.5 * 2^30 → "1.5 GiB".
std::string human_bytes(double bytes);

}  // namespace arbench
