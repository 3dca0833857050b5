#pragma once
// One evaluation of one design, the same for every command: `simulate`, the explorer's
// SystemC fidelity (dse/sim_evaluator.h) and `baseline` call evaluate_design and nothing
// else to price a design. It computes, once per canonical design (model, arch, device,
// calibration and epoch split, each in its resolved JSON form), the machine description
// the emitted build is (machine/machine.h), the SystemC-simulated padded step on it, the
// epoch over the split, and power and energy from the step's activity.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "machine/machine.h"
#include "models/dataset/dataset_lengths.h"
#include "models/model_spec.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"
#include "sim/epoch.h"
#include "sim/power/fpga_power.h"
#include "sim/step_sim.h"

namespace ttsim {

/// Everything one design evaluates to.
struct DesignEvaluation {
  machine::Machine machine;          ///< what the emitted build is: instances, memories, schedule
  StepResult step;                   ///< the padded step, SystemC (graph, schedule, occupancy)
  std::optional<EpochResult> epoch;  ///< over the split, when one was given
  PowerBreakdown power;              ///< watts, from the padded step's activity (sim/power)
  double step_joules = 0;            ///< power · step seconds
  std::optional<double> epoch_joules;  ///< power · epoch seconds
  /// Resources of the machine beyond the device (machine::over_device); empty: it fits.
  std::vector<std::string> over_device;
  /// LUT estimate of the design (design_luts: operator cores, bank networks, assumed
  /// control), LUTs; an estimate, not csynth, so it warns rather than decides fits.
  double luts = 0;
};

/// `activity` (sim/power schedule_activity) with the memory and logic of the emitted build:
/// BRAM36 / URAM288 units are the machine's blocks, busy = Σ_tasks (end − start) · blocks of
/// the arrays holding the buffers the task touches (parameters in param_mem, gradients in
/// grad_mem, activations in act_mem, temporaries in scratch_mem) / (blocks · makespan); logic
/// units are design_luts of the arch's units with the machine's banks (Σ partitions).
/// The memory planner's banks play no part.
FpgaActivity built_activity(FpgaActivity activity, const machine::Machine& m, const TaskGraph& graph,
                            const Schedule& schedule, const ArchSpec& arch);

/// The canonical key of a design: the resolved JSON of model, arch (with the name of its
/// calibration and every fitted value) and device, and the split's histogram.
std::string design_key(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                       const dataset::LengthHistogram* split);

/// Evaluates (model, arch, device) over `split` (null: no epoch), or returns the cached
/// evaluation of the same canonical design (thread-safe; entries live for the process).
/// Throws ConfigError from machine::check_buildable before any simulation (a design the
/// emitted top cannot carry out is never simulated) and InputError for inputs the
/// simulator or the HLS kernel tree refuse. A design that exceeds the device is evaluated
/// and says so in `over_device`.
std::shared_ptr<const DesignEvaluation> evaluate_design(const ModelSpec& model, const ArchSpec& arch,
                                                        const DeviceSpec& device,
                                                        const dataset::LengthHistogram* split);

}  // namespace ttsim
