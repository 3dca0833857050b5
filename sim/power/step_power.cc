#include "sim/power/step_power.h"

#include "sim/power/schedule_activity.h"

namespace ttsim {

FpgaActivity step_activity(const StepResult& step, const ArchSpec& arch, const DeviceSpec& device) {
  thread_local BankActivityShape shape;  // storage kept from the thread's last step
  bank_activity_shape_into(step.graph(), step.banks, step.footprint, shape);
  return schedule_activity(step.graph(), step.run.schedule, step.run.instances, shape, arch, device);
}

}  // namespace ttsim
