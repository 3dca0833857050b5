#include "hls/include/loop_counter.h"

#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)

#include <vector>

namespace ttsim_hls {
namespace {
std::vector<LoopCounterSite*>& sites() {
  static std::vector<LoopCounterSite*> all;
  return all;
}
}  // namespace

bool g_loop_counting = false;

LoopCounterSite::LoopCounterSite(const char* n) : name(n) { sites().push_back(this); }

void reset_loop_counts() {
  for (LoopCounterSite* s : sites()) s->hits = 0;
}

LoopCountScope::LoopCountScope() {
  reset_loop_counts();
  g_loop_counting = true;
}

LoopCountScope::~LoopCountScope() { g_loop_counting = false; }

std::map<std::string, std::int64_t> LoopCountScope::counts() const {
  std::map<std::string, std::int64_t> out;
  for (const LoopCounterSite* s : sites()) {
    if (s->hits != 0) out[s->name] += s->hits;
  }
  return out;
}

}  // namespace ttsim_hls

#endif
