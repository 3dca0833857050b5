#include "machine/aliasing.h"

#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"
#include "hls/kernels/model_step.h"

namespace ttsim::machine {

std::string memory_array_name(int memory_id) {
  using namespace ttsim_spec;
  if (memory_id >= kParamMem && memory_id < kParamMem + ttsim_hls::kFloatArenas) {
    return std::string(ttsim_hls::kArenaStems[memory_id - kParamMem]) + "_mem";
  }
  if (memory_id == kIndexMem) return "index_mem";
  if (memory_id == kSharedInputs) return "one unplaced array";
  return "its own memory";
}

std::vector<AliasedBinding> aliased_bindings(const TaskGraph& graph) {
  using namespace ttsim_spec;
  std::vector<AliasedBinding> out;
  for (const Task& t : graph.tasks) {
    const int k = kernel_index(to_string(t.op));
    if (k < 0) throw std::logic_error("aliased_bindings: no kernel specification for task " + t.name);
    const KernelSpec& spec = kKernelSpecs[k];
    const TaskShape& s = t.shape;
    for (int li = 0; li < spec.n_loops; ++li) {
      const LoopSpec& l = spec.loops[li];
      if (loop_trip(l.trip, l.variant, s.variant, s.batch, s.rows, s.inner, s.cols, 1) == 0) continue;
      for (int a = 0; a < l.n_access; ++a) {
        const int ma = memory_of(s.memories, kernel_array_slot(spec, l.access[a].array));
        if (ma == kOwnMemory) continue;
        for (int b = a + 1; b < l.n_access; ++b) {
          if (str_eq(l.access[a].array, l.access[b].array)) continue;
          const int mb = memory_of(s.memories, kernel_array_slot(spec, l.access[b].array));
          const bool one_argument = shared_argument(spec.module, l.access[a].array, l.access[b].array) != nullptr;
          if (one_argument ? mb == ma || mb == kOwnMemory : mb != ma) continue;
          out.push_back({t.id, t.name, spec.module, l.name, l.access[a].array, l.access[b].array,
                         one_argument ? memory_array_name(ma) + " and " + memory_array_name(mb)
                                      : memory_array_name(ma),
                         one_argument});
        }
      }
    }
  }
  return out;
}

void check_no_aliased_bindings(const TaskGraph& graph, const std::string& where) {
  const auto found = aliased_bindings(graph);
  if (found.empty()) return;
  const AliasedBinding& f = found.front();
  throw ConfigError(where, "", "no call binding two arguments of one loop iteration to one array",
                    fmt::format("task {} ({} loop {}) binds \"{}\" and \"{}\" {} {}{}", f.task_name, f.module, f.loop,
                                f.first, f.second, f.split ? "(one argument of the module) to" : "to one array,",
                                f.array,
                                found.size() > 1 ? fmt::format(" (and {} more such bindings)", found.size() - 1) : ""));
}

}  // namespace ttsim::machine
