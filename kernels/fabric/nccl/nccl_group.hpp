// One grouped NCCL setup collective (ncclDevCommCreate, ncclCommWindowRegister) for every rank,
// host code only so the sequence is tested without NCCL (tests/host/fabric/test_nccl_group.cpp).
//
// NCCL runs these calls as a collective at ncclGroupEnd. If rank r's call fails, ranks < r are
// already in the group: ending it as is would run their part of the collective without the
// others (NCCL records most failures in the group and then cleans up instead, but not those that
// return before reaching that check). So after a failure the remaining ranks are not called, the
// group is marked failed (abandon: abandon_group in nccl_api.hpp), and only then ended. The
// ranks whose call went in keep it queued in their communicator: the caller must stop using that
// feature of those communicators.
#pragma once

namespace arbench {

// Returns the first failing call's result, else the end's. `ok` is the success value.
template <class Result, class Start, class Call, class Abandon, class End>
Result grouped_setup(int world, Result ok, Start&& start, Call&& call, Abandon&& abandon, End&& end) {
  const Result started = start();
  if (started != ok) return started;
  Result failed = ok;
  for (int r = 0; r < world && failed == ok; ++r) failed = call(r);
  if (failed != ok) abandon();
  const Result ended = end();
  return failed != ok ? failed : ended;
}

}  // namespace arbench
