#pragma once
// Call-site instrumentation for C simulation (tests only).
//
// TTSIM_CALL_SITE() placed as the first statement of a kernel module (hls/kernels/modules.cc)
// records the call stack of each call. Compiled with TTSIM_CALL_SITE_PROBE defined and
// without inlining (g++ -O0 -fno-inline), the glue functions the top inlines in synthesis
// are frames of their own, so the distinct stacks of a module's calls are the call sites the
// top has once its glue is inlined (a call in a loop of the glue: one stack for every
// iteration). The stacks run up to main, so the testbench must call the top from one place
// for every step it counts (hls/tb/csim_tb.cc does). At exit the probe prints one line per
// module to stderr,
// "call_sites <module> <sites> <calls>". Without TTSIM_CALL_SITE_PROBE, or under
// __SYNTHESIS__, the macro expands to nothing.

#if defined(TTSIM_CALL_SITE_PROBE) && !defined(__SYNTHESIS__)

#include <execinfo.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ttsim_hls {

/// Per module: its distinct call stacks and its calls; printed when the program exits.
struct CallSiteProbe {
  struct Module {
    std::set<std::vector<void*>> stacks;
    long calls = 0;
  };
  std::map<std::string, Module> modules;
  ~CallSiteProbe() {
    for (const auto& m : modules) {
      std::fprintf(stderr, "call_sites %s %zu %ld\n", m.first.c_str(), m.second.stacks.size(), m.second.calls);
    }
  }
};

inline CallSiteProbe& call_site_probe() {
  static CallSiteProbe p;
  return p;
}

/// Records one call of `module` at the current call stack (return addresses, the probe's own
/// frame left out).
inline void record_call_site(const char* module) {
  void* frames[128];
  const int n = backtrace(frames, 128);
  CallSiteProbe::Module& m = call_site_probe().modules[module];
  m.stacks.insert(std::vector<void*>(frames + 1, frames + n));
  ++m.calls;
}

}  // namespace ttsim_hls

#define TTSIM_CALL_SITE() ::ttsim_hls::record_call_site(__func__)

#else

#define TTSIM_CALL_SITE() \
  do {                    \
  } while (0)

#endif
