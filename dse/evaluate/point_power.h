#pragma once
// Power, energy and LUT metrics of an explored design point, shared by the analytic and
// SystemC evaluators (dse/evaluate/sim_evaluator.h). The activity comes from the step's schedule
// (sim/schedule_activity.h): the analytic list schedule for analytic points, the
// SystemC schedule for SystemC points; the LUTs from design_luts (an estimate, not csynth).

#include "dse/space/metrics.h"
#include "hw/device_spec.h"
#include "hw/fpga_power.h"

namespace ttsim::dse {

/// Sets kLut = `luts` and, when `device` has power coefficients, kPowerStaticWatts,
/// kPowerDynamicWatts, kPowerTotalWatts from fpga_power(device, activity) and, when
/// kEpochSeconds is present, kEpochEnergyJoules = total watts × epoch seconds (the padded
/// step's power held over the epoch, as `ttsim simulate` reports it).
/// Throws InputError for an invalid activity (see fpga_power).
void set_power_metrics(const DeviceSpec& device, const FpgaActivity& activity, double luts,
                       MetricValues& m);

}  // namespace ttsim::dse
