#include "machine/aliasing.h"

#include <array>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"
#include "hls/kernels/model_step.h"

namespace ttsim::machine {

namespace {

using namespace ttsim_spec;

/// Two arrays one loop of a kernel accesses in one iteration.
struct LoopPair {
  const char* loop;
  const char* first;
  const char* second;
  int slot_first, slot_second;  ///< kernel_array_slot of each
  bool one_argument;            ///< the module takes both as one argument (kSharedArguments)
};

/// Variants a task can carry: contraction forms with the reduce and unit-C-stride bits
/// (kernel_spec.h kContractReduceBatch, kContractUnitCj), add variants.
constexpr int kVariants = 2 * ttsim_spec::kContractUnitCj;

/// The pairs of every kernel and variant, from the specification, computed once; and the
/// kernel of each TaskOp (-1: none), so a task costs no name lookup.
struct PairTable {
  std::array<std::array<std::vector<LoopPair>, kVariants>, kKernelSpecCount> of;
  std::array<int, kTaskOpCount> kernel_of_op{};
  PairTable() {
    for (int op = 0; op < kTaskOpCount; ++op) kernel_of_op[op] = kernel_index(to_string(static_cast<TaskOp>(op)));
    for (int k = 0; k < kKernelSpecCount; ++k) {
      const KernelSpec& spec = kKernelSpecs[k];
      for (int v = 0; v < kVariants; ++v) {
        for (int li = 0; li < spec.n_loops; ++li) {
          const LoopSpec& l = spec.loops[li];
          // A loop runs for the variant when its trip count for a 1-element task is non-zero.
          if (loop_trip(l.trip, l.variant, v, 1, 1, 1, 1, 1) == 0) continue;
          for (int a = 0; a < l.n_access; ++a) {
            for (int b = a + 1; b < l.n_access; ++b) {
              if (str_eq(l.access[a].array, l.access[b].array)) continue;
              of[k][v].push_back({l.name, l.access[a].array, l.access[b].array,
                                  kernel_array_slot(spec, l.access[a].array),
                                  kernel_array_slot(spec, l.access[b].array),
                                  shared_argument(spec.module, l.access[a].array, l.access[b].array) != nullptr});
            }
          }
        }
      }
    }
  }
};

const PairTable& pair_table() {
  static const PairTable table;
  return table;
}

}  // namespace

std::string memory_array_name(int memory_id) {
  if (memory_id >= kParamMem && memory_id < kParamMem + ttsim_hls::kFloatArenas) {
    return std::string(ttsim_hls::kArenaStems[memory_id - kParamMem]) + "_mem";
  }
  if (memory_id == kIndexMem) return "index_mem";
  if (memory_id == kSharedInputs) return "one unplaced array";
  return "its own memory";
}

std::vector<AliasedBinding> aliased_bindings(const TaskGraph& graph) {
  const PairTable& table = pair_table();
  std::vector<AliasedBinding> out;
  for (const Task& t : graph.tasks) {
    const int k = table.kernel_of_op[static_cast<int>(t.op)];
    if (k < 0) throw std::logic_error("aliased_bindings: no kernel specification for task " + t.name);
    const int v = t.shape.variant;
    if (v < 0 || v >= kVariants) throw std::logic_error("aliased_bindings: variant out of range in task " + t.name);
    for (const LoopPair& p : table.of[k][v]) {
      const int ma = memory_of(t.shape.memories, p.slot_first);
      const int mb = memory_of(t.shape.memories, p.slot_second);
      if (ma == kOwnMemory) continue;
      if (p.one_argument ? mb == ma || mb == kOwnMemory : mb != ma) continue;
      out.push_back({t.id, t.name, kKernelSpecs[k].module, p.loop, p.first, p.second,
                     p.one_argument ? memory_array_name(ma) + " and " + memory_array_name(mb) : memory_array_name(ma),
                     p.one_argument});
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
