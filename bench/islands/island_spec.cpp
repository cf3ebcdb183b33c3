#include "islands/island_spec.hpp"

#include <cctype>
#include <cstdlib>

#include "arbench/algo/island/island_map.hpp"
#include "arbench/core/errors.hpp"

namespace arbench::islands {
namespace {

constexpr int kMaxRank = algo::kLayoutMaxRanks - 1;

[[noreturn]] void bad(const std::string& text, const std::string& what) {
  throw UsageError("--islands '" + text + "': " + what +
                   "; write the islands separated by ',', each as rank runs a-b joined by '+', every rank once, "
                   "e.g. --islands 0-3,4-7 (two switches of four) or 0-2,3-7");
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char ch : s) {
    if (ch == sep)
      out.emplace_back();
    else
      out.back() += ch;
  }
  return out;
}

int rank_of(const std::string& text, const std::string& item) {
  if (item.empty() || item.size() > 2) bad(text, "'" + item + "' is not a rank");
  for (char ch : item)
    if (!std::isdigit(static_cast<unsigned char>(ch))) bad(text, "'" + item + "' is not a rank");
  const int r = std::atoi(item.c_str());
  if (r > kMaxRank) bad(text, "rank " + item + " is out of range (ranks are 0.." + std::to_string(kMaxRank) + ")");
  return r;
}

}  // namespace

std::vector<int> parse_islands(const std::string& text) {
  if (text.empty()) bad(text, "no islands given");
  std::vector<int> label(algo::kLayoutMaxRanks, -1);
  int islands = 0;
  for (const std::string& island : split(text, ',')) {
    if (island.empty()) bad(text, "an empty island (two ',' in a row, or one at an end)");
    for (const std::string& run : split(island, '+')) {
      if (run.empty()) bad(text, "an empty run in island '" + island + "'");
      const auto dash = run.find('-');
      const int lo = rank_of(text, run.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : rank_of(text, run.substr(dash + 1));
      if (hi < lo) bad(text, "the run " + run + " goes down; write it as " + std::to_string(hi) + "-" + std::to_string(lo));
      for (int r = lo; r <= hi; ++r) {
        if (label[static_cast<std::size_t>(r)] >= 0) bad(text, "rank " + std::to_string(r) + " is listed twice");
        label[static_cast<std::size_t>(r)] = islands;
      }
    }
    ++islands;
  }
  int ranks = algo::kLayoutMaxRanks;
  while (ranks > 0 && label[static_cast<std::size_t>(ranks - 1)] < 0) --ranks;  // the highest rank listed, + 1
  for (int r = 0; r < ranks; ++r)
    if (label[static_cast<std::size_t>(r)] < 0)
      bad(text, "rank " + std::to_string(r) + " is missing (every rank 0.." + std::to_string(ranks - 1) +
                    " must be in an island)");
  label.resize(static_cast<std::size_t>(ranks));
  return label;
}

void check_covers(const std::vector<int>& island_of, int world, const std::string& text) {
  if (world > static_cast<int>(island_of.size()))
    throw UsageError("--islands '" + text + "' covers ranks 0-" + std::to_string(static_cast<int>(island_of.size()) - 1) +
                     " but --gpus runs " + std::to_string(world) + " ranks; list every rank of the largest world size");
}

std::vector<int> islands_of_world(const std::vector<int>& island_of, int world) {
  return std::vector<int>(island_of.begin(), island_of.begin() + world);
}

std::map<int, std::vector<int>> halves(const std::vector<int>& worlds) {
  std::map<int, std::vector<int>> out;
  for (int w : worlds) {
    std::vector<int> labels;
    for (int r = 0; r < w; ++r) labels.push_back(r < w / 2 ? 0 : 1);
    out[w] = labels;
  }
  return out;
}

}  // namespace arbench::islands
