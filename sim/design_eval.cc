#include "sim/design_eval.h"

#include <map>
#include <mutex>

#include "models/training_graph.h"
#include "sim/power/step_power.h"

namespace ttsim {

FpgaActivity built_activity(FpgaActivity activity, const machine::Machine& m) {
  activity.bram36.units = static_cast<double>(m.bram36());
  activity.uram288.units = static_cast<double>(m.uram288());
  return activity;
}

std::string design_key(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                       const dataset::LengthHistogram* split) {
  Json k;
  k["model"] = model.to_json();
  k["arch"] = arch.to_json();
  k["device"] = device.to_json();
  if (arch.calibration) {
    Json c;
    c["name"] = arch.calibration->name;
    for (const auto& [op, p] : arch.calibration->kernels) {
      Json kp;
      kp["overhead"] = p.overhead;
      for (const auto& [loop, adj] : p.depth_adjust) kp["depth_adjust"][loop] = adj;
      c["kernels"][to_string(op)] = kp;
    }
    for (const auto& [op, cycles] : arch.calibration->op_latency) c["op_latency"][op] = cycles;
    k["calibration"] = c;
  }
  if (split) {
    Json s = Json::array();
    for (const auto& [len, n] : split->samples) s.push_back({len, n});
    k["split"] = s;
  }
  return k.dump();
}

std::shared_ptr<const DesignEvaluation> evaluate_design(const ModelSpec& model, const ArchSpec& arch,
                                                        const DeviceSpec& device,
                                                        const dataset::LengthHistogram* split) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const DesignEvaluation>> cache;
  const std::string key = design_key(model, arch, device, split);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  machine::check_buildable(arch);
  auto e = std::make_shared<DesignEvaluation>();
  e->step = simulate_step(model, arch, device, 0);
  e->machine = machine::describe(model, arch, device, e->step.graph);
  e->over_device = machine::over_device(e->machine, device);
  if (split) e->epoch = simulate_epoch(model, arch, device, *split, e->step);
  e->power = fpga_power(device, built_activity(step_activity(e->step, arch, device), e->machine));
  e->step_joules = e->power.total_watts() * e->step.run.schedule.makespan / (arch.clock_mhz * 1e6);
  if (e->epoch) e->epoch_joules = e->power.total_watts() * e->epoch->seconds;
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, std::move(e)).first->second;
}

}  // namespace ttsim
