// What a call throws, for the tests that check an error's message and fields: one try/catch here
// instead of one in every such test.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace arbench::test {

// The E that f() throws; std::nullopt, and a failure of the test, when it throws none.
template <class E, class F>
std::optional<E> thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  }
  ADD_FAILURE() << "expected an exception; none was thrown";
  return std::nullopt;
}

// The message of the E that f() throws; "" when it throws none (for tables of inputs, some fine).
template <class E, class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return {};
}

}  // namespace arbench::test
