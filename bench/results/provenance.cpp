#include "results/provenance.hpp"

#include "results/machine_stack.hpp"

#include <cstdlib>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

extern char** environ;

namespace arbench {

#ifndef ARBENCH_VERSION
#define ARBENCH_VERSION "0.0.0"
#endif
#ifndef ARBENCH_GIT_REVISION
#define ARBENCH_GIT_REVISION "unknown"
#endif

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

}  // namespace

Provenance host_provenance(const std::string& command_line, const std::string& backend) {
  Provenance p;
  p.arbench_version = ARBENCH_VERSION;
  p.arbench_revision = ARBENCH_GIT_REVISION;
  p.command_line = command_line;
  p.backend = backend;
  p.timing = backend == "host" ? "cpu" : "gpu";
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) p.host_name = host;
  p.launch.hosts = {p.host_name};
  p.launch.processes_per_node = {1};
  p.cpu_model = cpu_model();
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("NCCL_", 0) != 0) continue;
    auto eq = kv.find('=');
    p.nccl_env.push_back({kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1)});
  }
  for (const char* k : {"CUDA_MODULE_LOADING", "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(k)) p.cuda_env.push_back({k, v});
  p.peers = peer_build().sources;
  return p;
}

std::string peers_stack_text(const std::vector<PeerSource>& peers) {
  std::string s;
  for (const PeerSource& src : peers) s += (s.empty() ? "" : "; ") + peer_source_text(src, false);
  return s;
}

std::string launch_text(const LaunchInfo& l) {
  if (l.processes <= 1) return "1 process";
  const std::size_t nodes = l.hosts.size();
  std::string s = std::to_string(l.processes) + " processes on " + std::to_string(nodes) +
                  (nodes == 1 ? " node (" : " nodes (");
  for (std::size_t i = 0; i < nodes; ++i)
    s += (i ? ", " : "") + l.hosts[i] + " x" +
         std::to_string(i < l.processes_per_node.size() ? l.processes_per_node[i] : 0);
  return s + ")";
}

std::vector<std::pair<std::string, std::string>> fingerprint_fields(const Provenance& p) {
  std::string gpus;
  for (const auto& g : p.gpus) gpus += (gpus.empty() ? "" : ";") + g.name + "/" + g.cc + "/" + g.pci_bus_id;
  std::vector<std::pair<std::string, std::string>> f = {
      {"backend", p.backend}, {"host_name", p.host_name}, {"cpu_model", p.cpu_model},
      {"gpus", gpus},         {"driver", p.driver},       {"cuda_runtime", p.cuda_runtime},
      {"nccl_version", p.nccl_version}};
  if (p.launch.processes > 1) f.emplace_back("launch", launch_text(p.launch));
  return f;
}

std::string fnv1a_hex(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string fingerprint(const Provenance& p) {
  std::string text;
  for (const auto& [k, v] : fingerprint_fields(p)) text += k + "=" + v + "\n";
  return fnv1a_hex(text);
}

nlohmann::json to_json(const Provenance& p) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : p.gpus)
    gpus.push_back({{"index", g.index}, {"name", g.name}, {"cc", g.cc}, {"pci_bus_id", g.pci_bus_id},
                    {"sm_clock_mhz", g.sm_clock_mhz}, {"mem_clock_mhz", g.mem_clock_mhz}});
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [k, v] : p.nccl_env) env[k] = v;
  nlohmann::json cuda_env = nlohmann::json::object();
  for (const auto& [k, v] : p.cuda_env) cuda_env[k] = v;
  const nlohmann::json launch = {{"launcher", p.launch.launcher},
                                 {"processes", p.launch.processes},
                                 {"nodes", p.launch.hosts.size()},
                                 {"hosts", p.launch.hosts},
                                 {"processes_per_node", p.launch.processes_per_node}};
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& [k, v] : fingerprint_fields(p)) fields[k] = v;
  nlohmann::json peers = nlohmann::json::array();
  for (const PeerSource& src : p.peers) {
    nlohmann::json headers = nlohmann::json::array();
    for (const PeerHeader& h : src.headers) headers.push_back({{"path", h.path}, {"sha256", h.sha256}});
    peers.push_back({{"project", src.project}, {"origin", src.origin}, {"version", src.version},
                     {"commit", src.commit}, {"headers", headers}});
  }
  nlohmann::json j = {{"arbench_version", p.arbench_version}, {"arbench_revision", p.arbench_revision},
          {"command_line", p.command_line},       {"backend", p.backend},
          {"timing", p.timing},                   {"gpus", gpus},
          {"driver", p.driver},                   {"cuda_runtime", p.cuda_runtime},
          {"nccl_version", p.nccl_version},       {"nccl_library", p.nccl_library},
          {"nccl_env", env},  {"cuda_env", cuda_env},
          {"host_name", p.host_name},             {"cpu_model", p.cpu_model},
          {"launch", launch},                     {"fingerprint", fingerprint(p)},        {"fingerprint_fields", fields},
          {"peers", peers_stack_text(p.peers)},   {"peer_sources", peers}};
  if (!p.nccl_libraries.empty()) {
    nlohmann::json libs = nlohmann::json::array();
    for (const NcclLibraryInfo& l : p.nccl_libraries)
      libs.push_back({{"variant", l.variant}, {"label", l.label}, {"version", l.version}, {"path", l.path},
                      {"file", l.file}, {"build_id", l.build_id}, {"size_bytes", l.size_bytes}, {"named", l.named}});
    j["nccl_libraries"] = std::move(libs);
  }
  add_machine_and_stack(j);  // the caller adds it again once the topology is in (run_command.cpp)
  return j;
}

}  // namespace arbench
