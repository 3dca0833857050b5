#include "models/graph_summary.h"

namespace ttsim {

GraphSummary summarize(const TaskGraph& graph) {
  GraphSummary s;
  s.tasks = static_cast<int>(graph.tasks.size());
  s.buffers = static_cast<int>(graph.buffers.size());
  for (const auto& t : graph.tasks) {
    s.dependencies += static_cast<int>(t.deps.size());
    ++s.tasks_by_stage[to_string(t.stage)];
    ++s.tasks_by_unit[to_string(t.unit)];
    ++s.tasks_by_op[to_string(t.op)];
    s.macs_by_stage[to_string(t.stage)] += t.macs;
    s.total_macs += t.macs;
    s.total_elements += t.elements;
  }
  for (const auto& b : graph.buffers) {
    ++s.buffers_by_class[to_string(b.cls)];
    s.words_by_class[to_string(b.cls)] += b.words;
  }
  return s;
}

}  // namespace ttsim
