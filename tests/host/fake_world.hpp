// FakeWorld: one process's view of a World of several, for testing what a process does with
// the others' answers without starting them: all_gather returns `peers` with this process's
// contribution at its rank; max and broadcast apply `peer_values` / `peer_bytes`.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "arbench/world.hpp"

namespace arbench {

class FakeWorld final : public World {
 public:
  FakeWorld(int rank, int size) : peers(static_cast<std::size_t>(size)), rank_(rank), size_(size) {
    for (int r = 0; r < size; ++r) {
      layout_.hosts.push_back("node0");
      layout_.node_of.push_back(0);
    }
    layout_.local_rank = rank;
    layout_.local_size = size;
    layout_.launcher = "mpirun";
  }
  // Puts the processes on hosts: hosts[r] for process r (node numbers by first appearance).
  void place(const std::vector<std::string>& hosts) {
    layout_.hosts = hosts;
    layout_.node_of.clear();
    std::vector<std::string> seen;
    for (const auto& h : hosts) {
      auto it = std::find(seen.begin(), seen.end(), h);
      if (it == seen.end()) it = seen.insert(seen.end(), h);
      layout_.node_of.push_back(int(it - seen.begin()));
    }
    layout_.nodes = int(seen.size());
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const WorldLayout& layout() const override { return layout_; }
  double wait_bound_s() const override { return bound_; }
  void set_wait_bound_s(double s) override { bound_ = s; }
  void barrier(const char* what) override {
    ++collectives;
    log.push_back(what);
  }
  void max(std::vector<double>& v, const char* what) override {
    ++collectives;
    log.push_back(what);
    for (std::size_t i = 0; i < v.size() && i < peer_values.size(); ++i) v[i] = std::max(v[i], peer_values[i]);
  }
  std::vector<std::string> all_gather(const std::string& mine, const char* what) override {
    ++collectives;
    log.push_back(what);
    last_mine = mine;
    std::vector<std::string> all = peers;
    all[static_cast<std::size_t>(rank_)] = mine;
    return all;
  }
  void broadcast(std::string& bytes, int root, const char* what) override {
    ++collectives;
    log.push_back(what);
    if (root != rank_) bytes = peer_bytes;
  }
  [[noreturn]] void abort(int, const std::string& why) override { throw std::logic_error("abort: " + why); }

  std::vector<std::string> peers;   // what the other processes contribute to all_gather
  std::vector<double> peer_values;  // the others' maximum, for max()
  std::string peer_bytes;           // the root's bytes, for broadcast() on another process
  std::string last_mine;            // what this process contributed to the last all_gather
  int collectives = 0;
  std::vector<std::string> log;     // every collective's `what`, in order

 private:
  int rank_, size_;
  WorldLayout layout_;
  double bound_ = 60;
};

}  // namespace arbench
