#pragma once
// Loop-iteration instrumentation for C simulation.
//
// TTSIM_LOOP_COUNT("name") placed as the first statement of a pipelined loop body
// counts one iteration of the loop labelled `name` (the label the simulator's
// kernel model uses, hw/loop_nest.h). Counting is off until enabled with a
// LoopCountScope; an iteration then costs one relaxed load and one increment.
// Under __SYNTHESIS__ (Vitis HLS) or with TTSIM_NO_LOOP_COUNT defined the macro
// expands to nothing, so the synthesized RTL is unaffected.
//
// Several source sites may use the same name (for example "add" in ttsim_add and in
// ttsim_add_accumulate); counts are aggregated by name. Not thread-safe while
// counting is enabled: count from one thread at a time.

#if defined(__SYNTHESIS__) || defined(TTSIM_NO_LOOP_COUNT)

#define TTSIM_LOOP_COUNT(name) \
  do {                         \
  } while (0)

#else

#include <cstdint>
#include <map>
#include <string>

namespace ttsim_hls {

/// One counting site; registers itself once (function-local static in the macro).
struct LoopCounterSite {
  explicit LoopCounterSite(const char* name);
  const char* name;
  std::int64_t hits = 0;
};

/// True while a LoopCountScope is alive.
extern bool g_loop_counting;

/// Enables counting for its lifetime and zeroes every counter on entry.
class LoopCountScope {
 public:
  LoopCountScope();
  ~LoopCountScope();
  LoopCountScope(const LoopCountScope&) = delete;
  LoopCountScope& operator=(const LoopCountScope&) = delete;
  /// Iterations counted per loop name since the scope began (names with 0 omitted).
  std::map<std::string, std::int64_t> counts() const;
};

/// Zeroes every registered counter.
void reset_loop_counts();

}  // namespace ttsim_hls

#define TTSIM_LOOP_COUNT(name)                               \
  do {                                                       \
    static ::ttsim_hls::LoopCounterSite ttsim_loop_site_(name); \
    if (::ttsim_hls::g_loop_counting) ++ttsim_loop_site_.hits; \
  } while (0)

#endif
