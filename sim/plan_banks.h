#pragma once
// Bank instances from the on-chip memory planner (sim/memplan): every BRAM/URAM memory
// of the plan becomes one bank the SystemC engine models; buffers the plan keeps in
// registers or LUTRAM get no bank (no block-RAM ports to contend for).

#include <cstdint>
#include <vector>

#include "models/task_graph.h"
#include "sim/arch_spec.h"
#include "sim/bank_map.h"
#include "sim/device_spec.h"
#include "sim/memplan/memory_plan.h"

namespace ttsim {

/// The bank map of `plan`. A memory of F partitions with `ports` ports each and W words
/// per address becomes a bank of F · ports ports moving W words each per cycle; blocks
/// are its BRAM36 (ceil(BRAM_18K / 2)) or URAM288 count.
BankMap bank_map_from_plan(const memplan::MemoryPlan& plan);

/// Plans `graph` with the arch's strategy and lanes. Fused buffers (sim/occupancy.h)
/// are planned with their fused footprint `footprint[b]` words instead of their full size.
memplan::MemoryPlan plan_step_memory(const TaskGraph& graph, const ArchSpec& arch,
                                     const DeviceSpec& device,
                                     const std::vector<std::int64_t>& footprint);

}  // namespace ttsim
