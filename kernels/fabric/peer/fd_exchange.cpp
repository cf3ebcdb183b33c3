#include "kernels/fabric/peer/fd_exchange.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>

#include "arbench/core/errors.hpp"

namespace arbench {

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

namespace {

using Clock = std::chrono::steady_clock;

// What travels with each descriptor: who sent it, for which exchange.
struct Envelope {
  std::uint32_t magic = 0x41524244;  // "ARBD"
  std::int32_t sender = -1;
  std::uint64_t exchange = 0;
};

std::string errno_text(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

// The socket of `rank` in exchange `id`, in Linux's abstract namespace (a leading NUL: no file
// is created, and nothing is left behind when a process dies).
sockaddr_un socket_name(std::uint64_t id, int rank, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  char text[sizeof a.sun_path - 1];
  const int n = std::snprintf(text, sizeof text, "arbench-fd.%016llx.%d", static_cast<unsigned long long>(id), rank);
  std::memcpy(a.sun_path + 1, text, std::size_t(n));
  *len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + std::size_t(n));
  return a;
}

// A fresh id for this exchange, from process 0, the same on every process.
std::uint64_t exchange_id(World& w) {
  std::string bytes(sizeof(std::uint64_t), '\0');
  if (w.rank() == 0) {
    std::random_device rd;
    const std::uint64_t id = (std::uint64_t(rd()) << 32) ^ rd() ^ (std::uint64_t(::getpid()) << 16);
    std::memcpy(bytes.data(), &id, sizeof id);
  }
  w.broadcast(bytes, 0, "choosing the descriptor exchange's socket names");
  std::uint64_t id = 0;
  std::memcpy(&id, bytes.data(), sizeof id);
  return id;
}

void agree(World& w, const std::string& failure, const char* what) {
  const std::string agreed = first_failure(w, failure, what);
  if (agreed.empty()) return;
  throw_agreed("C1:" + std::string(what) + ": " + agreed);
}

// Sends `fd` to `peer`'s socket; retries while the peer's queue is full, until `deadline`.
std::string send_fd(int sock, std::uint64_t id, int me, int peer, int fd, Clock::time_point deadline) {
  socklen_t len = 0;
  sockaddr_un to = socket_name(id, peer, &len);
  Envelope env;
  env.sender = me;
  env.exchange = id;
  iovec io{&env, sizeof env};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_name = &to;
  msg.msg_namelen = len;
  msg.msg_iov = &io;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  for (;;) {
    if (::sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) == ssize_t(sizeof env)) return {};
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS && errno != EINTR)
      return "process " + std::to_string(me) + " could not send its descriptor to process " + std::to_string(peer) +
             " (" + errno_text("sendmsg") + ")";
    if (Clock::now() > deadline)
      return "process " + std::to_string(me) + " could not send its descriptor to process " + std::to_string(peer) +
             " before the deadline (its queue stayed full)";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Receives one descriptor; `out[sender]` gets it. Empty on success, else why not.
std::string receive_fd(int sock, std::uint64_t id, int me, std::vector<UniqueFd>& out, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return "deadline";
    pollfd p{sock, POLLIN, 0};
    const int ready = ::poll(&p, 1, int(std::min<long long>(left, 100)));
    if (ready < 0 && errno != EINTR) return errno_text("poll");
    if (ready <= 0) continue;
    Envelope env;
    iovec io{&env, sizeof env};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t got = ::recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return errno_text("recvmsg");
    }
    UniqueFd fd;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int))) {
        int f = -1;
        std::memcpy(&f, CMSG_DATA(c), sizeof f);
        fd = UniqueFd(f);
      }
    if (got != ssize_t(sizeof env) || env.magic != Envelope{}.magic || env.exchange != id)
      continue;  // not ours (a stale sender of an earlier exchange cannot know this id): dropped
    if ((msg.msg_flags & MSG_CTRUNC) != 0 || !fd.valid())
      return "process " + std::to_string(me) + " got a message from process " + std::to_string(env.sender) +
             " without its descriptor";
    if (env.sender < 0 || env.sender >= int(out.size()) || env.sender == me)
      return "process " + std::to_string(me) + " got a descriptor from an unknown process " + std::to_string(env.sender);
    if (out[std::size_t(env.sender)].valid())
      return "process " + std::to_string(me) + " got two descriptors from process " + std::to_string(env.sender);
    out[std::size_t(env.sender)] = std::move(fd);
    return {};
  }
}

}  // namespace

std::vector<UniqueFd> all_gather_fds(World& w, int fd, double timeout_s, const char* what) {
  const int me = w.rank(), n = w.size();
  std::vector<UniqueFd> out(static_cast<std::size_t>(n));
  const auto own_copy = [&] {
    out[std::size_t(me)] = UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
    return out[std::size_t(me)].valid() ? std::string() : errno_text("fcntl(F_DUPFD_CLOEXEC)");
  };
  if (n == 1) {
    if (std::string failure = own_copy(); !failure.empty()) throw CaseError(std::string(what) + ": " + failure);
    return out;
  }
  const std::uint64_t id = exchange_id(w);
  std::string failure;
  UniqueFd sock(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!sock.valid()) failure = errno_text("socket(AF_UNIX, SOCK_DGRAM)");
  if (failure.empty()) {
    socklen_t len = 0;
    const sockaddr_un a = socket_name(id, me, &len);
    if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&a), len) != 0) failure = errno_text("bind");
  }
  // Collective: once it returns, every process's socket exists.
  agree(w, failure.empty() ? failure : "process " + std::to_string(me) + ": " + failure, what);

  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  for (int k = 1; k < n && failure.empty(); ++k) failure = send_fd(sock.get(), id, me, (me + k) % n, fd, deadline);
  for (int k = 1; k < n && failure.empty(); ++k) {
    failure = receive_fd(sock.get(), id, me, out, deadline);
    if (failure == "deadline") {
      std::string missing;
      for (int p = 0; p < n; ++p)
        if (p != me && !out[std::size_t(p)].valid()) missing += (missing.empty() ? "" : ", ") + std::to_string(p);
      char bound[32];
      std::snprintf(bound, sizeof bound, "%g", timeout_s);
      failure = "process " + std::to_string(me) + " received no descriptor from process(es) " + missing + " within " +
                bound + " s";
    }
  }
  if (failure.empty()) failure = own_copy();
  agree(w, failure, what);
  return out;
}

}  // namespace arbench
