#pragma once
// One evaluation of one design, the same for every command: `simulate`, the explorer's
// SystemC fidelity (dse/evaluate/sim_evaluator.h) and `baseline` call evaluate_design and nothing
// else to price a design. It computes, once per canonical design (model, arch, device,
// calibration and epoch split, each in its resolved JSON form), the machine description
// the emitted build is (machine/machine.h), the SystemC-simulated padded step on its
// instances and arrays, the epoch over the split, and power and energy from the step's
// activity on those arrays.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "machine/machine.h"
#include "models/dataset/dataset_lengths.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "sim/epoch.h"
#include "sim/fidelity.h"
#include "hw/fpga_power.h"
#include "hw/ff_estimate.h"
#include "hw/lut_estimate.h"
#include "sim/step_sim.h"

namespace ttsim {

/// Everything one design evaluates to.
struct DesignEvaluation {
  /// The padded step (graph, schedule; occupancy at Fidelity::kSystemC only: an analytic
  /// evaluation leaves StepResult::occupancy empty, as no figure of it reads it).
  StepResult step;
  std::optional<EpochResult> epoch;  ///< over the split, when one was given
  /// Activity of the padded step on the machine (sim/schedule_activity step_activity: its units, the
  /// blocks of the arrays each task touches, the LUT estimate of its banks).
  FpgaActivity activity;
  /// Watts, from `activity` (hw/fpga_power); nullopt when the device file has no power
  /// coefficients (has_power_coefficients), as are the energies.
  std::optional<PowerBreakdown> power;
  std::optional<double> step_joules;   ///< power · step seconds
  std::optional<double> epoch_joules;  ///< power · epoch seconds
  /// Resources of the machine beyond the device by the one fit rule (machine::over_device
  /// with `luts` and the default headroom, hw/resource_fit.h); empty: it fits.
  std::vector<std::string> over_device;
  /// LUT estimate of the design (sim/schedule_activity.h design_luts: operator cores, bank
  /// networks, control per pipelined loop, binding multiplexers), LUTs; not csynth.
  double luts = 0;
  LutTerms lut_terms;  ///< `luts` by term
  /// FF estimate of the design (hw/ff_estimate.h design_ff_terms: operator cores, the kernel
  /// sources' registers, control per pipelined loop), by term.
  FfTerms ff_terms;
  /// What the emitted build is: instances, memories, schedule (the step's machine).
  const machine::Machine& machine() const { return *step.machine; }
};

/// The canonical key of a design: the resolved JSON of model, arch (with the name of its
/// calibration and every fitted value) and device, and the split's histogram.
std::string design_key(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                       const dataset::LengthHistogram* split);

/// SystemC evaluations evaluate_design keeps (least recently used evicted first).
constexpr std::size_t kSystemcCacheEntries = 16;

/// Evaluates (model, arch, device) over `split` (null: no epoch) at `fidelity`. SystemC
/// evaluations are cached by the canonical design (design_key; thread-safe, the
/// kSystemcCacheEntries most recently used): a second call returns the first's. Analytic ones are computed afresh
/// (they are cheap, and a sweep would otherwise keep every point's graph).
/// Throws ConfigError from machine::check_buildable before any simulation (a design the
/// emitted top cannot carry out is never simulated) and InputError for inputs the
/// simulator or the HLS kernel tree refuse. A design that exceeds the device is evaluated
/// and says so in `over_device`.
std::shared_ptr<const DesignEvaluation> evaluate_design(const ModelSpec& model, const ArchSpec& arch,
                                                        const DeviceSpec& device,
                                                        const dataset::LengthHistogram* split,
                                                        Fidelity fidelity = Fidelity::kSystemC);

/// How this thread's evaluations by evaluate_design were made since the thread started (a
/// SystemC evaluation answered from the cache is none of them): from scratch, on a template
/// of the same structure with the graph reshaped and the step re-simulated
/// (resimulate_step), or re-priced on a template whose last model had the same ranks
/// (reprice_step). For tests and benchmarks that must know which path ran.
struct EvaluationPaths {
  std::uint64_t built = 0;
  std::uint64_t resimulated = 0;
  std::uint64_t repriced = 0;
};
EvaluationPaths evaluation_paths();

/// Throws InputError "<model> on <arch> does not fit <device> (<device_file>): BRAM36 1,857
/// needed, 1,276 usable (1,344 on the device at /resources/bram36, 5 % headroom); ..." when `e` exceeds the device (DesignEvaluation::over_device),
/// the refusal `simulate` and `memplan` exit 2 with.
void require_fits(const DesignEvaluation& e, const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                  const std::string& device_file);

}  // namespace ttsim
