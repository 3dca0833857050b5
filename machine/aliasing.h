#pragma once
// Calls that bind two arguments of one pipelined loop to one array.
//
// Vitis HLS schedules a non-inlined function once, for every call site (UG1399,
// "Function Inlining" and ALLOCATION): each array argument is an interface of its own,
// with the ports the schedule gives it. When a call passes one on-chip array to two
// arguments that the callee accesses in the same loop iteration, the two interfaces
// meet at one RAM whose two ports the callee's schedule never shared out, so the loop's
// priced II (kernel_spec.h accesses per argument) is not what csynth binds. The emitted
// build therefore never does it: every such pair is refused here, by the machine check
// of every command (explore: infeasible with the reason; other commands: exit 2).

#include <string>
#include <vector>

#include "models/task_graph.h"

namespace ttsim::machine {

/// One call of the step that binds two arguments of one loop to one array.
struct AliasedBinding {
  int task = -1;           ///< task id in the graph
  std::string task_name;   ///< e.g. "enc0.ln1.fwd"
  std::string module;      ///< kernel module, e.g. "ttsim_layernorm"
  std::string loop;        ///< kernel_spec.h loop label, e.g. "layernorm_normalize"
  std::string first, second;  ///< the two kernel arguments, in the loop's access order
  std::string array;       ///< the array both are bound to, e.g. "param_mem" (split: "a and b")
  /// The two are one argument of the module (ttsim_spec::kSharedArguments) but the call
  /// binds them to two arrays, which the module cannot take.
  bool split = false;
};

/// Every (task, loop, argument pair) of `graph` whose two arguments the loop accesses
/// in one iteration and whose TaskShape::memories put in one array of the top, unless
/// the module takes the two as one argument (ttsim_spec::kSharedArguments); and every pair
/// the module takes as one argument that the call binds to two arrays (split). Pairs come
/// from the kernel_spec.h access lists of the loops the task's variant runs (computed once
/// per kernel and variant); an argument with no memory of the top (kOwnMemory) is apart by
/// definition; kSharedInputs, a contraction's unplaced A and B, counts as one array. Empty
/// when the graph's step needs no aliased binding; costs a few comparisons per task.
/// Throws std::logic_error for a task whose op has no kernel specification or whose
/// variant is outside 0..7.
/// Source of the rule: UG1399 schedules a non-inlined function once for every call site,
/// each array argument an interface of its own (hls-scheduling reference, "Functions,
/// instances and concurrency").
std::vector<AliasedBinding> aliased_bindings(const TaskGraph& graph);

/// "param_mem", "index_mem", "one unplaced array", "its own memory" for a
/// ttsim_spec::MemoryId.
std::string memory_array_name(int memory_id);

/// Throws ConfigError naming `where` (the arch file, or the arch's name) and the first of
/// aliased_bindings(graph) with the count of the others, when the list is not empty.
/// machine::describe runs it on every fresh description (not describe_into's reuse path:
/// a reshape to other ranks changes no binding).
void check_no_aliased_bindings(const TaskGraph& graph, const std::string& where);

}  // namespace ttsim::machine
