#include "sim/step_reuse.h"

#include <stdexcept>

#include "sim/sched_graph.h"

namespace ttsim {

void resimulate_step(StepResult& step, machine::Machine& machine, const ModelSpec& model, const ArchSpec& arch,
                     const DeviceSpec& device, KernelLatencyModel& latency, const machine::HlsDesign& hd,
                     EngineOptions options) {
  if (step.machine.get() != &machine || !step.graph_ptr) {
    throw std::invalid_argument("resimulate_step: the step does not run on the machine given");
  }
  if (step.tokens != model.tokens()) throw std::invalid_argument("resimulate_step: not a padded step of the model");
  const TaskGraph& g = step.graph();
  // One static schedule per module instance, bound over one task per latency class (the
  // classes regrouped: new ranks change the shapes of some tasks).
  group_price_classes(step.sched, g);
  thread_local std::vector<std::int64_t> class_cycles;
  latency.bind_instances(g, step.sched.price_rep, class_cycles);
  price_classes(step.sched, g, class_cycles);
  buffer_footprints_into(g, step.fused, step.footprint);
  machine::describe_into(machine, arch, device, g, latency, hd, {&step.sched.price_class, &step.sched.price_rep});
  run_on_machine(step, arch, options, true);
}

void reprice_step(StepResult& step, machine::Machine& machine, const ArchSpec& arch, const DeviceSpec& device,
                  KernelLatencyModel& latency, EngineOptions options) {
  if (step.machine.get() != &machine || !step.graph_ptr) {
    throw std::invalid_argument("reprice_step: the step does not run on the machine given");
  }
  const TaskGraph& g = step.graph();
  thread_local std::vector<std::int64_t> class_cycles;
  latency.bind_instances(g, step.sched.price_rep, class_cycles);
  price_classes(step.sched, g, class_cycles);
  machine::redescribe_into(machine, arch, device, g, latency, {&step.sched.price_class, &step.sched.price_rep});
  run_on_machine(step, arch, options, true, true);
}

}  // namespace ttsim
