// World: the processes of one run and the few things they do together (docs/multi-process.md).
//
// A plain `arbench run` is one process driving every rank (SoloWorld: every call is a no-op).
// Under `mpirun` / `srun` each rank is a process and the World is MPI's (bench/mpi/); the
// multi-process fabrics and the harness reach MPI only through this interface, so nothing
// else is compiled differently with or without MPI.
//
// Collectives: every process calls them in the same order. Every wait is bounded
// (wait_bound_s()); a process that is still missing after the bound is lost (stuck or dead),
// and the process that noticed ends the whole run with abort(), MPI_Abort's "last resort".
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace arbench {

// Where the processes run, the same on every process.
struct WorldLayout {
  std::vector<std::string> hosts;  // host name of every world rank
  std::vector<int> node_of;        // node index of every world rank (nodes numbered by their first rank)
  int nodes = 1;
  int local_rank = 0;  // this process among those on its node
  int local_size = 1;
  std::string launcher = "none";  // "mpirun", "srun" or "none" (one process)
};

class World {
 public:
  virtual ~World() = default;
  virtual int rank() const = 0;  // this process, 0 .. size()-1
  virtual int size() const = 0;
  virtual const WorldLayout& layout() const = 0;

  // Seconds any collective waits for the slowest process before calling abort().
  virtual double wait_bound_s() const = 0;
  virtual void set_wait_bound_s(double s) = 0;

  // `what` names the step in the message printed when the bound runs out.
  virtual void barrier(const char* what) = 0;
  // Element-wise maximum over the processes, in place (same length everywhere).
  virtual void max(std::vector<double>& values, const char* what) = 0;
  // Every process's `mine`, indexed by world rank.
  virtual std::vector<std::string> all_gather(const std::string& mine, const char* what) = 0;
  // `root`'s `bytes` on every process.
  virtual void broadcast(std::string& bytes, int root, const char* what) = 0;
  // Ends every process of the run with `exit_code` after printing `why` (never returns).
  [[noreturn]] virtual void abort(int exit_code, const std::string& why) = 0;

  bool multi_process() const { return size() > 1; }
};

// One process driving every rank: the plain `arbench run`.
class SoloWorld final : public World {
 public:
  SoloWorld();  // layout: this host, one process
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const WorldLayout& layout() const override { return layout_; }
  double wait_bound_s() const override { return bound_; }
  void set_wait_bound_s(double s) override { bound_ = s; }
  void barrier(const char*) override {}
  void max(std::vector<double>&, const char*) override {}
  std::vector<std::string> all_gather(const std::string& mine, const char*) override { return {mine}; }
  void broadcast(std::string&, int, const char*) override {}
  [[noreturn]] void abort(int exit_code, const std::string& why) override;

 private:
  WorldLayout layout_;
  double bound_ = 60.0;
};

// The one-process World of single-process fabrics.
World& solo_world();

// The lowest world rank's non-empty `mine`, the same on every process; empty when every
// process passed an empty one. How the processes agree that a step failed and why.
std::string first_failure(World& w, const std::string& mine, const char* what);

// Marks an error every process raised together, after agreeing on it (agree_on_errors): each
// process may simply exit with its code. Any other error escaping in a multi-process run was
// raised by one process alone, whose peers may be waiting for it: the run must be aborted.
struct AgreedError {
  virtual ~AgreedError() = default;
};

// Runs `step` on this process. When it threw an arbench::Error (or any std::exception) on any
// process, every process throws the lowest rank's error: the same type (UsageError,
// EnvironmentError, CaseError, HangError ...), the same message, marked AgreedError.
// `what` names the step in the wait bound's message.
void agree_on_errors(World& w, const std::function<void()>& step, const char* what);

// The pieces of agree_on_errors, for collectives that agree on more than an error:
// `error` as text ("" when null), and that text thrown back as its error, marked AgreedError.
std::string error_token(std::exception_ptr error);
[[noreturn]] void throw_agreed(const std::string& token);

}  // namespace arbench
