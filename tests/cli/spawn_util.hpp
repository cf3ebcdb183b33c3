// Start arbench as a child whose pid the test holds (to send it signals), with its stdout and
// stderr on a pipe or on a pseudo-terminal, and read its output with a time bound.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

struct Child {
  pid_t pid = -1;
  int fd = -1;  // read end: the child's stdout and stderr
  std::string output;
};

inline std::vector<std::string> split_args(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> v;
  for (std::string a; in >> a;) v.push_back(a);
  return v;
}

inline void exec_arbench(const std::string& args) {
  std::vector<std::string> v = split_args(args);
  std::vector<char*> argv = {const_cast<char*>(ARBENCH_EXE)};
  for (auto& a : v) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(ARBENCH_EXE, argv.data());
  _exit(127);
}

// stdout and stderr on a pipe (no terminal), or both on a pseudo-terminal of `columns` columns.
inline Child spawn_arbench(const std::string& args, bool terminal = false, int columns = 120) {
  Child c;
  if (terminal) {
    winsize ws{};
    ws.ws_col = static_cast<unsigned short>(columns);
    ws.ws_row = 40;
    c.pid = forkpty(&c.fd, nullptr, nullptr, &ws);
    if (c.pid == 0) exec_arbench(args);
    return c;
  }
  int p[2];
  if (pipe(p) != 0) return c;
  c.pid = fork();
  if (c.pid == 0) {
    dup2(p[1], STDOUT_FILENO);
    dup2(p[1], STDERR_FILENO);
    close(p[0]);
    close(p[1]);
    exec_arbench(args);
  }
  close(p[1]);
  c.fd = p[0];
  return c;
}

// Reads until `needle` appears in the output (true) or `seconds` pass / the output ends (false).
inline bool read_until(Child& c, const std::string& needle, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (c.output.find(needle) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{c.fd, POLLIN, 0};
    if (poll(&pfd, 1, int(left.count())) <= 0) return false;
    char buf[4096];
    const ssize_t n = read(c.fd, buf, sizeof buf);
    if (n <= 0) return false;  // EOF (or EIO once a pty's child exits)
    c.output.append(buf, std::size_t(n));
  }
  return true;
}

// Reads the rest of the output and waits for the exit, at most `seconds`; the exit code, 1000 +
// the signal when a signal killed it, or -1 after killing a child that did not finish in time.
inline int finish(Child& c, double seconds) {
  read_until(c, std::string(1, '\0') + "never", seconds);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (waitpid(c.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      kill(c.pid, SIGKILL);
      waitpid(c.pid, &status, 0);
      close(c.fd);
      return -1;
    }
    usleep(20000);
  }
  close(c.fd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);  // killed: not an exit code
}
