// Errors that carry their exit code (docs/user-guide.md, "Errors and exit codes").
// 0 ok · 1 a case failed or a regression · 2 bad usage or unreadable input · 3 environment.
#pragma once

#include <stdexcept>
#include <string>

namespace arbench {

enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitEnvironment = 3 };

class Error : public std::runtime_error {
 public:
  Error(int exit_code, const std::string& what) : std::runtime_error(what), code_(exit_code) {}
  int exit_code() const { return code_; }

 private:
  int code_;
};

// Bad command line or unreadable input: the user can fix it by changing what they typed.
struct UsageError : Error {
  explicit UsageError(const std::string& w) : Error(kExitUsage, w) {}
};

// The machine lacks something (driver, GPUs, NCCL): the user must install or move.
struct EnvironmentError : Error {
  explicit EnvironmentError(const std::string& w) : Error(kExitEnvironment, w) {}
};

// One case went wrong at run time (wrong result, peer timeout): fails that case only.
// A GPU faulted for good (a sticky CUDA error, an Xid): this process's CUDA context is
// unusable, so no later case can run and rebuilding the fabric would fault again. Never turned
// into a skip: the run ends with what it measured (exit 3).
struct DeviceFaultError : EnvironmentError {
  explicit DeviceFaultError(const std::string& w) : EnvironmentError(w) {}
};

struct CaseError : Error {
  explicit CaseError(const std::string& w) : Error(kExitFailure, w) {}
};

// A case whose ops did not finish within their bound: the fabric may still be running them, so
// it is stopped (Fabric::abort) and dropped before anything else runs; the run goes on with a
// fresh fabric, or stops when the devices are no longer usable (Fabric::health).
struct HangError : CaseError {
  explicit HangError(const std::string& w) : CaseError(w) {}
};

}  // namespace arbench
