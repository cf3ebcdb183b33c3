#include "measure/nccl/nccl_init_log.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>

namespace arbench {

std::vector<int> nccl_coll_channels_in_log(std::string_view text) {
  static constexpr std::string_view kKey = " coll channels,";
  std::vector<int> counts;
  for (std::size_t at = text.find(kKey); at != std::string_view::npos; at = text.find(kKey, at + kKey.size())) {
    std::size_t b = at;
    while (b > 0 && text[b - 1] >= '0' && text[b - 1] <= '9') --b;
    if (b == at || at - b > 4) continue;  // no number right before it
    if (b > 0 && text[b - 1] != ' ') continue;  // part of another word
    counts.push_back(std::stoi(std::string(text.substr(b, at - b))));
  }
  return counts;
}

std::vector<std::string> nccl_warnings_in_log(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.find(" NCCL WARN ") != std::string_view::npos) out.emplace_back(line);
    start = end + 1;
  }
  return out;
}

std::optional<NcclInitLog> NcclInitLog::start(const std::string& file) {
  for (const char* k : {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"})
    if (std::getenv(k) != nullptr) return std::nullopt;
  ::setenv("NCCL_DEBUG", "INFO", 1);
  ::setenv("NCCL_DEBUG_SUBSYS", "INIT", 1);
  ::setenv("NCCL_DEBUG_FILE", file.c_str(), 1);
  return NcclInitLog(file);
}

std::vector<int> NcclInitLog::new_coll_channels(std::ostream& warn) {
  std::ifstream in(file_, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  if (size <= offset_) return {};
  // Whole lines only: NCCL may be writing the last one.
  in.seekg(static_cast<std::streamoff>(offset_));
  std::string text(size - offset_, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  const std::size_t last_newline = text.rfind('\n');
  if (last_newline == std::string::npos) return {};
  text.resize(last_newline + 1);
  offset_ += text.size();
  for (const std::string& w : nccl_warnings_in_log(text)) warn << w << "\n";
  return nccl_coll_channels_in_log(text);
}

std::vector<std::pair<std::string, std::string>> nccl_channel_labels(int asked, const std::vector<int>& counts) {
  if (counts.empty() || asked <= 0) return {};
  const int has = *std::min_element(counts.begin(), counts.end());
  std::vector<std::pair<std::string, std::string>> labels{{"nccl_channels_run", std::to_string(std::min(asked, has))}};
  if (asked > has)
    labels.emplace_back("nccl_channels_clamped", "asked for " + std::to_string(asked) + " channels; the communicator has " +
                                                     std::to_string(has) + ", and NCCL runs at most that many");
  return labels;
}

}  // namespace arbench
