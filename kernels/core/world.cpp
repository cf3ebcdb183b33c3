#include "arbench/world.hpp"

#include "arbench/last_words.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

// An error of type E that every process raised together.
template <class E>
struct Agreed final : E, AgreedError {
  explicit Agreed(const std::string& what) : E(what) {}
};

struct AgreedOther final : Error, AgreedError {
  AgreedOther(int code, const std::string& what) : Error(code, what) {}
};

}  // namespace

SoloWorld::SoloWorld() {
  char host[256] = {};
  layout_.hosts = {gethostname(host, sizeof host - 1) == 0 ? std::string(host) : std::string("localhost")};
  layout_.node_of = {0};
}

World& solo_world() {
  static SoloWorld w;
  return w;
}

void SoloWorld::abort(int exit_code, const std::string& why) {
  std::fprintf(stderr, "arbench: %s\n", why.c_str());
  say_last_words("the run was aborted: " + why);  // the finished cases are written first
  std::fflush(nullptr);
  std::_Exit(exit_code);
}

std::string first_failure(World& w, const std::string& mine, const char* what) {
  if (!w.multi_process()) return mine;
  for (std::string& m : w.all_gather(mine, what))
    if (!m.empty()) return m;
  return {};
}

// Token: one letter for the type, the exit code, ':', the message.
std::string error_token(std::exception_ptr error) {
  if (!error) return {};
  try {
    std::rethrow_exception(error);
  } catch (const UsageError& e) {
    return "U2:" + std::string(e.what());
  } catch (const EnvironmentError& e) {
    return "E3:" + std::string(e.what());
  } catch (const HangError& e) {
    return "H1:" + std::string(e.what());
  } catch (const CaseError& e) {
    return "C1:" + std::string(e.what());
  } catch (const Error& e) {
    return "X" + std::to_string(e.exit_code()) + ":" + e.what();
  } catch (const std::exception& e) {
    return "X1:internal error: " + std::string(e.what());
  } catch (...) {
    return "X1:internal error: unknown exception";
  }
}

void throw_agreed(const std::string& token) {
  const auto colon = token.find(':');
  const std::string what = colon == std::string::npos ? token : token.substr(colon + 1);
  switch (token.empty() ? 'X' : token[0]) {
    case 'U': throw Agreed<UsageError>(what);
    case 'E': throw Agreed<EnvironmentError>(what);
    case 'H': throw Agreed<HangError>(what);
    case 'C': throw Agreed<CaseError>(what);
    default: throw AgreedOther(colon == std::string::npos ? 1 : std::atoi(token.c_str() + 1), what);
  }
}

void agree_on_errors(World& w, const std::function<void()>& step, const char* what) {
  std::exception_ptr error;
  try {
    step();
  } catch (...) {
    error = std::current_exception();
  }
  if (!w.multi_process()) {
    if (error) std::rethrow_exception(error);
    return;
  }
  const std::string agreed = first_failure(w, error_token(error), what);
  if (!agreed.empty()) throw_agreed(agreed);
}

}  // namespace arbench
