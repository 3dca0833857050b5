#include "sim/design_eval.h"

#include <map>
#include <mutex>

#include "machine/hls_dims.h"
#include "models/training_graph.h"
#include "sim/power/schedule_activity.h"
#include "sim/power/step_power.h"

#include <algorithm>
#include <array>

namespace ttsim {

FpgaActivity built_activity(FpgaActivity activity, const machine::Machine& m, const TaskGraph& graph,
                            const Schedule& schedule, const ArchSpec& arch) {
  // A task touches the arrays of the classes of the buffers it reads and writes (the
  // machine's arrays of one class: act/out/saved0/saved1 hold activations, bwd_*/chain*/stat
  // temporaries); every array of a touched class is charged for the task's duration.
  double bram_busy = 0, uram_busy = 0;
  for (const Task& t : graph.tasks) {
    const double d = static_cast<double>(schedule.tasks[t.id].end - schedule.tasks[t.id].start);
    bool cls_touched[4] = {false, false, false, false};
    for (const auto* list : {&t.reads, &t.writes}) {
      for (int b : *list) cls_touched[static_cast<int>(graph.buffers[b].cls)] = true;
    }
    for (const machine::Memory& mem : m.memories) {
      if (!mem.buffer_class || !cls_touched[static_cast<int>(*mem.buffer_class)]) continue;
      bram_busy += d * static_cast<double>(mem.bram36);
      uram_busy += d * static_cast<double>(mem.uram288);
    }
  }
  const double cycles = static_cast<double>(schedule.makespan);
  auto fraction = [&](double busy, double units) {
    return units > 0 && cycles > 0 ? std::min(1.0, busy / (units * cycles)) : 0.0;
  };
  activity.bram36.units = static_cast<double>(m.bram36());
  activity.uram288.units = static_cast<double>(m.uram288());
  activity.bram36.busy_fraction = fraction(bram_busy, activity.bram36.units);
  activity.uram288.busy_fraction = fraction(uram_busy, activity.uram288.units);
  std::int64_t banks = 0;
  for (const auto& mem : m.memories) banks += mem.partition;
  std::array<int, kUnitKinds> instances{};
  for (int k = 0; k < kUnitKinds; ++k) instances[k] = arch.units[k].count;
  activity.kilo_lut.units = design_luts(instances, arch, banks) / 1000.0;
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
  // The kernel tree's limits (encoders, factors, arena sizes) before the step's graph is
  // built: a model far beyond them would otherwise take that graph's memory first.
  machine::hls_design(model, arch, arch.source_file.empty() ? arch.name : arch.source_file);
  auto e = std::make_shared<DesignEvaluation>();
  e->step = simulate_step(model, arch, device, 0);
  e->machine = machine::describe(model, arch, device, e->step.graph);
  e->over_device = machine::over_device(e->machine, device);
  if (split) e->epoch = simulate_epoch(model, arch, device, *split, e->step);
  const FpgaActivity activity =
      built_activity(step_activity(e->step, arch, device), e->machine, e->step.graph, e->step.run.schedule, arch);
  e->luts = activity.kilo_lut.units * 1000;
  e->power = fpga_power(device, activity);
  e->step_joules = e->power.total_watts() * e->step.run.schedule.makespan / (arch.clock_mhz * 1e6);
  if (e->epoch) e->epoch_joules = e->power.total_watts() * e->epoch->seconds;
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, std::move(e)).first->second;
}

}  // namespace ttsim
