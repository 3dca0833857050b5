#pragma once
// LUTs of the FP32 operator cores of a unit, counted from the kernel specification
// (hls/include/kernel_spec.h): per loop of every kernel module the unit runs, each
// operator of the loop's chain has lanes instances (kOnce in a loop with lane accesses),
// lanes − 1 (kTree) or one (kScalar, or any operator of a loop without lane accesses) —
// the instance rule of hw/arch_spec.h loop_dsp (Vitis outlines each pipelined loop into
// its own module, so loops do not share operators) — times the LUTs of that core.
// Per-core LUTs are the csynth figures of real reports (shared/reference/hls-reports.md
// §2.6); cores no report shows are assumptions, stated as such.

#include <cstdint>

#include "core/json_view.h"
#include "models/task_graph.h"

namespace ttsim {

/// One operator core's LUTs and where the figure comes from.
struct OperatorLuts {
  const char* op;      ///< kernel_spec.h operator name ("fadd", "fmul", ...)
  double luts;         ///< LUTs of one core (csynth estimate)
  const char* source;  ///< report and core name, or "assumption: ..."
};

/// LUTs of one core of operator `op` (kernel_spec.h Opr; 0 for read/write).
double operator_core_luts(int op);

/// Table of every FP operator core's LUTs with its source (for JSON output and docs).
Json operator_luts_json();

/// LUTs of the FP operator cores of one instance of each kernel module that runs on
/// `unit` with `lanes` lanes (rule above). Throws std::invalid_argument for lanes < 1.
double unit_operator_luts(UnitKind unit, int lanes);

/// True when the kernel of ttsim_spec::kKernelSpecs[kernel] (its task_op, a
/// to_string(TaskOp)) runs on a unit of kind `unit`; false for an index outside the table.
bool kernel_runs_on(int kernel, UnitKind unit);

}  // namespace ttsim
