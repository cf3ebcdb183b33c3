#include "mpi/mpi_world.hpp"

#include "arbench/last_words.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

using Clock = std::chrono::steady_clock;

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw EnvironmentError(std::string("MPI: ") + call + " failed: " + text);
}

std::string host_name() {
  char host[256] = {};
  return gethostname(host, sizeof host - 1) == 0 ? std::string(host) : std::string("unknown");
}

}  // namespace

MpiWorld::MpiWorld(int* argc, char*** argv, const std::string& launcher) {
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  // Errors come back as codes (turned into messages above) instead of ending the job silently.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  layout_.launcher = launcher;

  MPI_Comm node_comm = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm),
        "MPI_Comm_split_type");
  MPI_Comm_rank(node_comm, &layout_.local_rank);
  MPI_Comm_size(node_comm, &layout_.local_size);
  int leader = rank_;  // the world rank of this node's local rank 0 names the node
  MPI_Bcast(&leader, 1, MPI_INT, 0, node_comm);
  MPI_Comm_free(&node_comm);

  std::vector<int> leaders(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  std::map<int, int> node_index;  // leader -> node number, in order of first rank
  for (int l : leaders) node_index.emplace(l, int(node_index.size()));
  for (int l : leaders) layout_.node_of.push_back(node_index.at(l));
  layout_.nodes = int(node_index.size());
  layout_.hosts = all_gather(host_name(), "exchanging host names");
}

MpiWorld::~MpiWorld() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void MpiWorld::wait(MPI_Request& req, const char* what) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(bound_s_);
  // Poll gently: several processes may share a core (mpirun --oversubscribe), and a busy poll
  // would take the CPU from the process everyone is waiting for.
  auto nap = std::chrono::microseconds(1);
  for (;;) {
    int done = 0;
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    if (Clock::now() > deadline)
      abort(kExitFailure, "process " + std::to_string(rank_) + " of " + std::to_string(size_) + " waited " +
                              std::to_string(int(bound_s_)) + " s for the other processes while " + what +
                              "; at least one of them is stuck or gone. Ending the run (MPI_Abort)");
    std::this_thread::sleep_for(nap);
    if (nap < std::chrono::microseconds(500)) nap *= 2;
  }
}

void MpiWorld::barrier(const char* what) {
  MPI_Request req;
  check(MPI_Ibarrier(MPI_COMM_WORLD, &req), "MPI_Ibarrier");
  wait(req, what);
}

void MpiWorld::max(std::vector<double>& values, const char* what) {
  MPI_Request req;
  check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req),
        "MPI_Iallreduce");
  wait(req, what);
}

std::vector<std::string> MpiWorld::all_gather(const std::string& mine, const char* what) {
  int len = int(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  MPI_Request req;
  check(MPI_Iallgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD, &req), "MPI_Iallgather");
  wait(req, what);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lens[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Iallgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR,
                        MPI_COMM_WORLD, &req),
        "MPI_Iallgatherv");
  wait(req, what);
  std::vector<std::string> out;
  for (int r = 0; r < size_; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
  return out;
}

void MpiWorld::broadcast(std::string& bytes, int root, const char* what) {
  unsigned long long len = bytes.size();
  MPI_Request req;
  check(MPI_Ibcast(&len, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD, &req), "MPI_Ibcast");
  wait(req, what);
  bytes.resize(static_cast<std::size_t>(len));
  check(MPI_Ibcast(bytes.data(), int(len), MPI_CHAR, root, MPI_COMM_WORLD, &req), "MPI_Ibcast");
  wait(req, what);
}

void MpiWorld::abort(int exit_code, const std::string& why) {
  std::fprintf(stderr, "arbench: [process %d of %d on %s] %s\n", rank_, size_,
               layout_.hosts.empty() ? "?" : layout_.hosts[static_cast<std::size_t>(rank_)].c_str(), why.c_str());
  // Process 0 writes the cases that finished (arbench/last_words.hpp) before MPI ends the run;
  // when another process aborts, process 0's files hold what finished up to its last case.
  say_last_words("the run was aborted: " + why);
  std::fflush(nullptr);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this only satisfies [[noreturn]]
}

}  // namespace arbench
