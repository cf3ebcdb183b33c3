// Cases that need environment variables of their own run in a child arbench process started with
// those variables in its environment: a forced NCCL configuration (`nccl[ring/ll]`: NCCL_ALGO /
// NCCL_PROTO, which NCCL reads when it creates a communicator), and any configuration that sets
// NCCL's environment (a tuner plugin, a channel count). Why not setenv here: NCCL's proxy and RAS
// threads (and MPI's) read the environment while they live, and setenv beside a reader is a data
// race; a child gets the variables at exec, before any thread exists, and nothing ever calls setenv.
//
// The generic mechanism (for any Variant whose fabric_env() is not empty, on the cuda backend):
//   EnvChildren children(cases, own_command_line(), cfg.timeout_s);
//   CaseResult r = children.run(c, env);   // the first case of an environment starts its child
// One child per environment runs every case of that environment (one communicator set-up), with
// the parent's own command line plus two variables naming the cases and the result file
// (child_role()); the child writes its results there and the parent reads them back whole
// (case_from_json). A child that crashes, hangs past its bound (then killed) or writes nothing
// fails its cases with the reason and its log's last lines. Under mpirun the processes cannot
// start children, so such cases are refused there (measure/harness.cpp plan).
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arbench/core/case.hpp"
#include "results/results.hpp"

namespace arbench {

using ChildEnv = std::map<std::string, std::string>;

// What one child was asked to run and how long it may take.
struct EnvChildRequest {
  std::vector<std::string> argv;  // the command line to run (argv[0]: the executable)
  ChildEnv env;                   // added to (or replacing in) this process's environment
  std::vector<std::string> cases; // exact case names; the child runs these only
  double bound_s = 600;           // the child is killed after this
};

struct EnvChildResult {
  std::map<std::string, CaseResult> results;  // by case name
  std::string failure;  // why some cases did not come back (empty: all did)
  int exit_code = 0;    // the child's (-1: killed or crashed)
};

// Runs the request's child and reads its results back. Never throws for the child's failures.
EnvChildResult run_cases_in_child(const EnvChildRequest& req);

// In a child: the cases and the result file its parent asked for (ARBENCH_CHILD_CASES names a
// file of case names, one per line; ARBENCH_CHILD_OUT the result file); nullopt otherwise.
struct ChildRole {
  std::vector<std::string> cases;
  std::string out;
};
std::optional<ChildRole> child_role();

// This process's command line as it was started (/proc/self/cmdline).
std::vector<std::string> own_command_line();

// The runnable cases of a run, grouped by the environment they need, run in children on demand.
class EnvChildren {
 public:
  // `cases`: every case that needs a child, with its environment; `timeout_s`: the run's --timeout
  // (each child's bound grows with its cases).
  EnvChildren(std::vector<std::pair<Case, ChildEnv>> cases, std::vector<std::string> argv, double timeout_s);
  // The result of `c`; the first case of an environment runs that environment's child.
  CaseResult run(const Case& c, const ChildEnv& env);

 private:
  std::vector<std::pair<Case, ChildEnv>> cases_;
  std::vector<std::string> argv_;
  double timeout_s_;
  std::map<ChildEnv, EnvChildResult> done_;
};

// Waits for child `pid` at most `bound_s`, then kills it (SIGKILL; `killed` says so). Its exit
// code, or -1 (crashed or killed).
int wait_bounded(pid_t pid, double bound_s, bool& killed);

// "NCCL_ALGO=Ring NCCL_PROTO=LL" for messages.
std::string env_text(const ChildEnv& env);

}  // namespace arbench
