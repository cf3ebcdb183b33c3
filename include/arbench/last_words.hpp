// Last words: what the process does on a way out that never returns to the run loop (a watchdog
// that gave up on a hung NCCL call and ends the process, a World that aborts the run), so the
// cases that finished are still written. `arbench run` registers the writer (the finished cases,
// marked incomplete with the reason); code that ends the process calls say_last_words first.
// Thread-safe; the writer runs at most once, and never throws out of say_last_words.
#pragma once

#include <functional>
#include <string>

namespace arbench {

// Installs `writer` (empty: none); it is called with why the process ends.
void set_last_words(std::function<void(const std::string& why)> writer);
// Calls the writer, once per process, if one is installed; later calls do nothing.
void say_last_words(const std::string& why);

}  // namespace arbench
