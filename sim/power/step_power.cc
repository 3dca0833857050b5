#include "sim/power/step_power.h"

#include "sim/power/schedule_activity.h"

namespace ttsim {

FpgaActivity step_activity(const StepResult& step, const ArchSpec& arch, const DeviceSpec& device) {
  return schedule_activity(step.graph(), step.run.schedule, step.run.instances,
                           bank_activity_shape(step.graph(), step.banks, step.footprint), arch, device);
}

}  // namespace ttsim
