#pragma once
// Small helper to build TaskGraphs by hand in the memory planner tests.

#include <algorithm>
#include <string>
#include <vector>

#include "models/task_graph.h"
#include "hw/device_spec.h"

namespace ttsim::memplan::testing {

class GraphBuilder {
 public:
  int buffer(const std::string& name, BufferClass cls, std::int64_t words) {
    Buffer b;
    b.id = static_cast<int>(g_.buffers.size());
    b.name = name;
    b.cls = cls;
    b.words = words;
    b.shape = {words};
    g_.buffers.push_back(b);
    return b.id;
  }
  int task(const std::string& name, UnitKind unit, std::vector<int> reads, std::vector<int> writes,
           std::vector<int> deps) {
    Task t;
    t.id = static_cast<int>(g_.tasks.size());
    t.name = name;
    t.unit = unit;
    t.reads = std::move(reads);
    t.writes = std::move(writes);
    t.deps = std::move(deps);
    g_.tasks.push_back(t);
    return t.id;
  }
  /// Fills first_task/last_task from the tasks' reads and writes.
  TaskGraph build() const {
    TaskGraph g = g_;
    for (auto& b : g.buffers) b.first_task = b.last_task = -1;
    for (const Task& t : g.tasks) {
      for (const auto* l : {&t.reads, &t.writes}) {
        for (int b : *l) {
          Buffer& buf = g.buffers[b];
          if (buf.first_task < 0) buf.first_task = t.id;
          buf.last_task = std::max(buf.last_task, t.id);
        }
      }
    }
    return g;
  }

 private:
  TaskGraph g_;
};

inline DeviceSpec small_device(std::int64_t bram36, std::int64_t uram) {
  DeviceSpec d;
  d.name = "test";
  d.bram36 = bram36;
  d.uram288 = uram;
  d.uram_cascade_height = 8;
  return d;
}

}  // namespace ttsim::memplan::testing
