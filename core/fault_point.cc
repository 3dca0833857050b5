#include "core/fault_point.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <string>

namespace ttsim {

namespace {

struct FaultPlan {
  long long at = 0;  // 0 = off
  int signal = 0;
};

FaultPlan read_plan() {
  FaultPlan p;
  const char* env = std::getenv("TTSIM_FAULT_AT");
  if (!env) return p;
  const std::string s = env;
  const auto colon = s.find(':');
  if (colon == std::string::npos) return p;
  const std::string sig = s.substr(colon + 1);
  const int signal = sig == "KILL" ? SIGKILL : sig == "INT" ? SIGINT : sig == "TERM" ? SIGTERM
                     : sig == "STOP" ? SIGSTOP : 0;
  try {
    const long long at = std::stoll(s.substr(0, colon));
    if (at > 0 && signal != 0) p = {at, signal};
  } catch (const std::exception&) {
  }
  return p;
}

}  // namespace

void fault_point() {
  static const FaultPlan plan = read_plan();
  if (plan.at == 0) return;
  static std::atomic<long long> count{0};
  if (++count == plan.at) std::raise(plan.signal);
}

}  // namespace ttsim
