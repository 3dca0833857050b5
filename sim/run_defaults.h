#pragma once
// Every fixed figure and default a simulation run relies on, as one JSON object for the
// outputs (`simulate --json` "defaults_used"): the device's figures actually used
// (operator latencies at the run's clock, power coefficients, resource totals), the
// memory model's ports and word width, the LUT estimate's constants and the HLS storage
// thresholds of the memory planner.

#include "core/json_view.h"
#include "hw/device_spec.h"
#include "hw/kernel_params.h"

namespace ttsim {

/// {"device": {name, file, part, resources, operator_latency_cycles (each float op at
///  `clock_mhz`, or the calibration's op_latency where `calibration` has one: the figure
///  the latency model uses), operator_latency_source (op → "device <file>" or
///  "calibration <file>"), operator_dsp, power (coefficients and their source: pass the
///  device apply_calibration returned, whose fitted coefficients replace the file's),
///  memory latencies},
///  "memory_model": {ports_per_bank, word_bits, bram36/uram288 words per port cycle},
///  "lut_estimate": hw/lut_estimate.h lut_estimate_json (every constant with unit and
///  source), "hls_storage": {complete_partition_threshold_elements, lutram_max_bits,
///  uram_min_bank_words: each {value, unit, source}}, "fit_rule": {resource_headroom_pct
///  {value, unit, source}, resources}, "clock_mhz"}. Units in the key names or entries.
/// `clock_mhz` is the clock the run priced at (the achievable clock of a calibration whose
/// reports missed timing); `calibration` may be null (uncalibrated run).
Json run_defaults_json(const DeviceSpec& device, double clock_mhz, const KernelCalibration* calibration = nullptr);

}  // namespace ttsim
