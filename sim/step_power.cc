#include "sim/step_power.h"

#include <stdexcept>
#include <vector>

#include "machine/machine.h"
#include "sim/schedule_activity.h"

namespace ttsim {

FpgaActivity step_activity(const StepResult& step, const ArchSpec& arch, const DeviceSpec& device,
                           LutTerms* luts) {
  thread_local BankActivityShape shape;  // storage kept from the thread's last step
  if (step.task_banks.begin.size() != step.graph().tasks.size() + 1) {
    throw std::invalid_argument("step_activity: the step's task banks do not cover its tasks");
  }
  bank_activity_shape_into(step.graph(), step.task_banks, step.banks, shape);
  // The top's call sites are the machine's (every simulated step runs on one).
  if (!step.machine) throw std::invalid_argument("step_activity: the step has no machine");
  thread_local std::vector<ModuleCalls> calls;
  machine::module_calls_into(*step.machine, calls);
  return schedule_activity(step.graph(), step.run.schedule, step.run.instances, shape, calls, arch, device, luts);
}

}  // namespace ttsim
