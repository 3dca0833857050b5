#pragma once
// Text and JSON renderings of a MemoryPlan, shared by `ttsim memplan` and
// `ttsim simulate` (its JSON "memory_plan" object).

#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/task_graph.h"
#include "sim/memplan/memory_plan.h"

namespace ttsim::memplan {

/// The summary object: {"strategy", "device", "bram18_blocks", "bram36_blocks",
/// "uram_blocks", "lutram_bits", "register_bits", "used_bits", "allocated_bits",
/// "efficiency" (used / allocated), "uram_min_depth", "memories", "fits",
/// "shortfall": {"bram36", "uram288", "bytes", "ideal_bytes"}, "explanation",
/// "occupancy": {"peak_total_bytes", "peak_task", "peak_by_class_bytes": {...},
/// "no_reuse_bytes": {...}}, "by_class": [{"class", "buffers", "words",
/// "peak_live_bytes", "bram36", "uram288"}]}.
Json plan_summary_json(const MemoryPlan& plan);

/// plan_summary_json plus "memory_instances" (id, name, kind, impl, mode, columns, rows,
/// partitions, words_per_address, ports, depth, bram18, uram288, used_bits,
/// allocated_bits, buffers) and "placements" (buffer name, memory, offset, addresses,
/// first_task, last_task, whole_step) — names taken from `graph`.
Json plan_detail_json(const MemoryPlan& plan, const TaskGraph& graph);

/// Human-readable summary: totals line, efficiency, fit explanation, then the per-class
/// table (buffers, words, MB, peak live MB, BRAM36, URAM288).
std::string format_plan_summary(const MemoryPlan& plan);

/// Plans of one graph under several strategies side by side: header "strategy BRAM36
/// URAM288 efficiency fits shortfall" and one line per plan (efficiency in %, shortfall
/// "-" for a plan that fits, else the missing BRAM36 and URAM288 blocks and MiB).
std::string format_strategy_table(const std::vector<MemoryPlan>& plans);

}  // namespace ttsim::memplan
