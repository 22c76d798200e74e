// Kernel log lines captured for assertions.
#pragma once
#include "amplifier/log.hpp"

#include <chrono>
#include <mutex>
#include <thread>
#include <string>
#include <string_view>
#include <vector>

namespace amp_test {

// Captures every kernel log line ("<level> [<component>] <message>"; module warnings arrive with
// the module id as component) while it lives; the default sink comes back afterwards.
class LogCapture {
 public:
  LogCapture() {
    amplifier::set_log_sink(
        [this](amplifier::LogLevel level, std::string_view component, std::string_view message) {
          std::lock_guard lock(mutex_);
          lines_.push_back(std::string(amplifier::to_string(level)) + " [" +
                           std::string(component) + "] " + std::string(message));
        });
  }
  ~LogCapture() { amplifier::set_log_sink({}); }
  LogCapture(const LogCapture &) = delete;
  LogCapture &operator=(const LogCapture &) = delete;

  std::vector<std::string> containing(std::string_view needle) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> found;
    for (const auto &line : lines_)
      if (line.find(needle) != std::string::npos) found.push_back(line);
    return found;
  }
  // Waits until a line contains `needle` (true) or `timeout` passes: for a line another thread
  // writes about when the test looks (a timer of the module's that fires at the same moment).
  bool wait_for(std::string_view needle, std::chrono::milliseconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (containing(needle).empty()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }
  std::string all() const {
    std::lock_guard lock(mutex_);
    std::string text;
    for (const auto &line : lines_) text += line + "\n";
    return text;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace amp_test
