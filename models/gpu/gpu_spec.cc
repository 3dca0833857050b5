#include "models/gpu/gpu_spec.h"

namespace ttsim {

Json GpuSpec::to_json() const {
  return {{"kind", "gpu"},
          {"name", name},
          {"memory_bytes", memory_bytes},
          {"fp32_peak_tflops", fp32_peak_flops / 1e12},
          {"memory_bandwidth_gbs", bandwidth_bytes_per_s / 1e9},
          {"compute_efficiency", compute_efficiency},
          {"bandwidth_efficiency", bandwidth_efficiency},
          {"board_power_watts", board_power_watts},
          {"idle_power_watts", idle_power_watts},
          {"launch_overhead_us", launch_overhead_s * 1e6},
          {"framework_overhead_bytes", framework_overhead_bytes}};
}

GpuSpec parse_gpu_spec(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"kind", "name", "description", "memory_bytes", "fp32_peak_tflops",
                   "memory_bandwidth_gbs", "compute_efficiency", "bandwidth_efficiency",
                   "board_power_watts", "idle_power_watts", "launch_overhead_us",
                   "framework_overhead_bytes", "sources"});
  root.at("kind").as_enum({"gpu"});
  GpuSpec g;
  g.source_file = file;
  g.name = root.at("name").as_string();
  if (auto d = root.find("description")) d->as_string();
  if (auto s = root.find("sources")) s->as_array(0);
  g.memory_bytes = root.at("memory_bytes").as_double(1, 1e15);
  g.fp32_peak_flops = root.at("fp32_peak_tflops").as_double(1e-3, 1e4) * 1e12;
  g.bandwidth_bytes_per_s = root.at("memory_bandwidth_gbs").as_double(1e-3, 1e6) * 1e9;
  g.compute_efficiency = root.get_double("compute_efficiency", 1.0, 1e-3, 1.0);
  g.bandwidth_efficiency = root.get_double("bandwidth_efficiency", 1.0, 1e-3, 1.0);
  g.board_power_watts = root.at("board_power_watts").as_double(1, 5000);
  g.idle_power_watts = root.at("idle_power_watts").as_double(0, g.board_power_watts);
  g.launch_overhead_s = root.at("launch_overhead_us").as_double(0, 1e6) * 1e-6;
  g.framework_overhead_bytes = root.at("framework_overhead_bytes").as_double(0, 1e13);
  return g;
}

GpuSpec load_gpu_spec(const std::string& path) { return parse_gpu_spec(load_json_file(path), path); }

}  // namespace ttsim
