#pragma once
// Test helper: a watchdog for fuzz loops. While a guarded call runs (between begin() and
// end()), a background thread checks every 100 ms and aborts the process with a message
// naming the input when the call has run for more than 5 s. Not a timing test: it only
// turns a hang into a failure.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace ttsim::testing {

// Aborts the process when one guarded call runs longer than 5 s.
class HangGuard {
 public:
  HangGuard() : thread_([this] { watch(); }) {}
  ~HangGuard() {
    stop_ = true;
    thread_.join();
  }
  /// Starts guarding one call; `what` names the input in the abort message.
  void begin(const std::string& what) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      what_ = what;
    }
    start_ = now();
  }
  /// Ends the guarded call.
  void end() { start_ = 0; }

 private:
  static long long now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void watch() {
    while (!stop_) {
      const long long s = start_;
      if (s != 0 && now() - s > 5000) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::fprintf(stderr, "hang guard: one input took more than 5 s (%s)\n", what_.c_str());
        std::abort();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<long long> start_{0};
  std::mutex mutex_;
  std::string what_;
  std::thread thread_;
};

}  // namespace ttsim::testing
