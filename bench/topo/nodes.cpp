#include "topo/nodes.hpp"

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace arbench::topo {

using nlohmann::json;

namespace {

// "0-7", or "0,2,4" when the processes of a node are not consecutive (mpirun --map-by node).
std::string process_list(const std::vector<int>& ranks) {
  bool consecutive = true;
  for (std::size_t i = 1; i < ranks.size(); ++i) consecutive = consecutive && ranks[i] == ranks[i - 1] + 1;
  if (consecutive && ranks.size() > 1) return std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ",") + std::to_string(r);
  return s;
}

}  // namespace

json report_every_node(World& w, const std::function<json(std::ostream&)>& probe, std::ostream& out) {
  const WorldLayout& l = w.layout();
  std::string mine;
  if (l.local_rank == 0) {
    std::ostringstream text;
    json report = json::object();
    try {
      report["doc"] = probe(text);
    } catch (...) {
      report["error"] = error_token(std::current_exception());
    }
    report["text"] = text.str();
    mine = report.dump();
  }
  const std::vector<std::string> all = w.all_gather(mine, "gathering every node's topology");

  std::vector<std::vector<int>> processes(static_cast<std::size_t>(l.nodes));
  for (int r = 0; r < w.size(); ++r)
    processes[static_cast<std::size_t>(l.node_of[static_cast<std::size_t>(r)])].push_back(r);
  json nodes = json::array();
  std::string failure;
  for (std::size_t n = 0; n < processes.size(); ++n) {
    const int leader = processes[n].front();
    const json report = json::parse(all[static_cast<std::size_t>(leader)]);
    const std::string host = l.hosts[static_cast<std::size_t>(leader)];
    if (w.rank() == 0) {
      out << "== node " << n << ": " << host << " (processes " << process_list(processes[n]) << ") ==\n"
          << report.value("text", std::string());
      if (report.contains("error")) {
        const std::string token = report["error"];
        out << "arbench: error on " << host << ": " << token.substr(token.find(':') + 1) << "\n";
      }
      out << "\n";
    }
    if (report.contains("error") && failure.empty()) failure = report["error"];
    nodes.push_back({{"host", host}, {"processes", processes[n]}, {"topo", report.value("doc", json())}});
  }
  out << std::flush;
  if (!failure.empty()) throw_agreed(failure);
  if (nodes.size() == 1) return nodes[0]["topo"];
  return {{"schema", "arbench-topo-nodes/1"}, {"nodes", nodes}};
}

}  // namespace arbench::topo
