#include "sim/run_defaults.h"

#include "sim/bank_map.h"
#include "hw/block_arith.h"
#include "hw/ff_estimate.h"
#include "hw/fpga_power.h"
#include "hw/kernel_latency.h"
#include "hw/lut_estimate.h"
#include "hw/resource_fit.h"
#include "machine/machine.h"

namespace ttsim {

namespace {

/// The device file as read, with the operator latencies (cycles) and DSPs the kernel loops are
/// priced with at `clock_mhz` (a calibration's latency replaces the device's), the units of its
/// figures and the file's own sources.
Json device_defaults_json(const DeviceSpec& device, double clock_mhz, const KernelCalibration* calibration) {
  Json ops = Json::object(), dsp = Json::object(), source = Json::object();
  // As KernelLatencyModel prices them: the calibration's figure replaces the device's.
  for (const auto& [name, cycles] : priced_operator_latencies(device, clock_mhz, calibration)) {
    ops[name] = cycles;
    source[name] = calibration && calibration->op_latency.count(name) ? "calibration " + calibration->name
                                                                       : "device " + device.source_file;
    dsp[name] = device.float_ops.at(name).dsp;
  }
  Json dev = device.to_json();
  dev["file"] = device.source_file;
  dev["operator_latency_cycles"] = ops;
  dev["operator_latency_source"] = source;
  dev["operator_dsp"] = dsp;
  // Units of the device file's figures, and the file's own sources for them.
  dev["units"] = {{"card.idle_watts", "W"},
                  {"card.max_watts", "W"},
                  {"clocks.*_mhz", "MHz"},
                  {"float_ops.*.latency.cycles", "cycles at the kernel clock"},
                  {"float_ops.*.latency.max_clock_mhz", "MHz (the highest clock the latency holds at)"},
                  {"float_ops.*.dsp", "DSP48E2 slices per operator core"},
                  {"memory.*_latency", "cycles"},
                  {"int_mul32.dsp", "DSP48E2 slices per 32-bit integer multiplier (a kernel's trip-count setup)"},
                  {"resources.*", "blocks or cells of the device"}};
  dev["sources"] = device.sources;
  return dev;
}

/// The bank model's ports, word widths and latencies (cycles), with their source.
Json memory_model_json(const DeviceSpec& device) {
  const BankInstance bank;  // the memory model's defaults
  return {{"ports_per_bank", bank.ports},
          {"word_bits", 32},
          {"bram36_words_per_port_cycle_per_block", 1},   // 36-bit port: one FP32 word
          {"uram288_words_per_port_cycle_per_block", 2},  // 72-bit row: two FP32 words
          {"bram_read_latency_cycles", device.bram_read_latency},
          {"uram_read_latency_cycles", device.uram_read_latency},
          {"write_latency_cycles", device.write_latency},
          {"source", "UG573: RAMB36E2 and URAM288 have two ports each, a 36-bit BRAM port carries one FP32 word "
                     "and a 72-bit URAM row two per cycle (shared/reference/hls-reports.md section 2.3); the "
                     "latencies are the device file's memory entries (cycles)"}};
}

/// The kernels' 32-bit trip-count limit (iterations), with its source.
Json kernel_trip_limit_json() {
  return {{"value", machine::kMaxKernelTrip},
          {"unit", "iterations of one kernel loop call"},
          {"source", "machine/machine.h kMaxKernelTrip: the kernels evaluate their trip counts in 32-bit "
                     "arithmetic (hls/include/kernel_spec.h loop_trip<int>, priced as int_mul32 multipliers); "
                     "describe refuses a task above it"}};
}

/// The HLS storage thresholds (elements, bits, words per bank), each with its source.
Json hls_storage_json() {
  const memplan::HlsStorageRules storage;
  return {{"complete_partition_threshold_elements",
           {{"value", storage.complete_partition_threshold},
            {"unit", "elements"},
            {"source", "UG1399 config_array_partition -complete_threshold default (hw/block_arith.h)"}}},
          {"lutram_max_bits",
           {{"value", storage.lutram_max_bits},
            {"unit", "bits"},
            {"source", "config_storage -auto_srl_max_bits default, consistent with observed csynth rows "
                       "(hw/block_arith.h); Vitis does not document its RAM threshold"}}},
          {"uram_min_bank_words",
           {{"value", machine::kUramMinBankWords},
            {"unit", "words per bank"},
            {"source", "machine/machine.h: banks at least this deep may go to URAM288 (4,096 rows of 72 "
                       "bits, one FP32 word per row); shallower banks stay in BRAM36 (1,024 words)"}}}};
}

/// The fit rule's constants (headroom and SLR infrastructure share, %) and its statement.
Json fit_rule_json() {
  return {{"resource_headroom_pct",
           {{"value", kDefaultResourceHeadroomPct},
            {"unit", "% of each device resource"},
            {"source", "hw/resource_fit.h kDefaultResourceHeadroomPct: simulate, memplan and baseline; explore "
                       "uses its sweep's constraints/resource_headroom_pct (default the same), emit the one its "
                       "chosen.json was chosen under"}}},
          {"slr_infrastructure_pct",
           {{"value", kSlrInfrastructurePct},
            {"unit", "% of each SLR's resources"},
            {"source", "UG1393 \"Determining Where to Place the Kernels\": 10% of the available resources can be "
                       "used by system infrastructure; what one SLR holds for the kernel is floor(total / slrs * "
                       "(100 - headroom - 10) / 100) (hw/resource_fit.h one_slr_usable)"}}},
          {"resources", "BRAM36, URAM288, DSP48E2, the LUT estimate and the FF estimate, each <= floor(total * (100 - "
                        "headroom) / 100); card power (the device file's card.idle_watts + the design's dynamic power) <= "
                        "card.max_watts * (100 - headroom) / 100; clock <= the design's achievable clock * (100 - "
                        "headroom) / 100, the achievable clock being clocks.achievable_mhz, or clocks.multi_slr_mhz "
                        "when some resource is above what one SLR holds (hw/resource_fit.h achievable_clock)"}};
}

}  // namespace

Json run_defaults_json(const DeviceSpec& device, double clock_mhz, const KernelCalibration* calibration) {
  return {{"clock_mhz", clock_mhz},
          {"device", device_defaults_json(device, clock_mhz, calibration)},
          {"memory_model", memory_model_json(device)},
          {"kernel_trip_limit", kernel_trip_limit_json()},
          {"lut_estimate", lut_estimate_json()},
          {"ff_estimate", ff_estimate_json()},
          {"hls_storage", hls_storage_json()},
          {"fit_rule", fit_rule_json()}};
}

}  // namespace ttsim
