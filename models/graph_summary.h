#pragma once
// Summary counts of a training-step task graph (models/task_graph.h), for `ttsim model`
// and tests.

#include <cstdint>
#include <map>
#include <string>

#include "models/task_graph.h"

namespace ttsim {

/// Counts of a TaskGraph. Map keys are the to_string() names of Stage, UnitKind,
/// TaskOp and BufferClass.
struct GraphSummary {
  int tasks = 0;
  int buffers = 0;
  int dependencies = 0;                          ///< Σ |Task::deps|
  std::map<std::string, int> tasks_by_stage;     ///< "forward", "backward", "update"
  std::map<std::string, int> tasks_by_unit;      ///< "contraction", "softmax", ...
  std::map<std::string, int> tasks_by_op;        ///< "contraction", "add", "sgd_update", ...
  std::map<std::string, int> buffers_by_class;   ///< "parameter", "gradient", ...
  std::map<std::string, std::int64_t> words_by_class;  ///< FP32 words per buffer class
  std::map<std::string, std::int64_t> macs_by_stage;   ///< contraction MACs per Stage
  std::int64_t total_macs = 0;      ///< Σ Task::macs
  std::int64_t total_elements = 0;  ///< Σ Task::elements (non-contraction work)
};

/// Counts over every task and buffer of `graph`.
GraphSummary summarize(const TaskGraph& graph);

}  // namespace ttsim
