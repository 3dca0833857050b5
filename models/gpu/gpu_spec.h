#pragma once
// A GPU that the FPGA design is compared with (configs/devices/<gpu>.json, "kind": "gpu").

#include <string>

#include "core/json_view.h"

namespace ttsim {

/// GPU parameters for the PyTorch-style batch-1 training baseline.
struct GpuSpec {
  std::string name;
  std::string source_file;
  double memory_bytes = 0;            ///< device memory
  double fp32_peak_flops = 0;         ///< FLOP/s (not TFLOP/s)
  double bandwidth_bytes_per_s = 0;   ///< DRAM bandwidth
  double compute_efficiency = 1;      ///< achievable fraction of peak FLOP/s for these small GEMMs
  double bandwidth_efficiency = 1;    ///< achievable fraction of peak bandwidth
  double board_power_watts = 0;       ///< board power limit (all units busy)
  double idle_power_watts = 0;        ///< power with a context open and no kernel running
  double launch_overhead_s = 0;       ///< host-side time per kernel launch (eager framework)
  double framework_overhead_bytes = 0;  ///< CUDA context + framework workspace, fixed
  /// Json with every field (units in the key names).
  Json to_json() const;
};

/// Loads and validates a GPU file (ConfigError with file and pointer on error).
GpuSpec load_gpu_spec(const std::string& path);
GpuSpec parse_gpu_spec(const Json& doc, const std::string& file);

}  // namespace ttsim
