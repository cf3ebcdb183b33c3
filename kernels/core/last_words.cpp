// Last words (arbench/last_words.hpp): one writer per process, said at most once.
#include "arbench/last_words.hpp"

#include <cstdio>
#include <exception>
#include <mutex>
#include <utility>

namespace arbench {
namespace {

std::mutex& mu() {
  static std::mutex m;
  return m;
}
std::function<void(const std::string&)>& writer() {
  static std::function<void(const std::string&)> w;
  return w;
}
bool said = false;

}  // namespace

void set_last_words(std::function<void(const std::string& why)> w) {
  std::lock_guard lk(mu());
  writer() = std::move(w);
  said = false;
}

void say_last_words(const std::string& why) {
  std::function<void(const std::string&)> w;
  {
    std::lock_guard lk(mu());
    if (said || !writer()) return;
    said = true;
    w = writer();
  }
  try {
    w(why);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arbench: could not write the finished cases: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "arbench: could not write the finished cases\n");
  }
}

}  // namespace arbench
