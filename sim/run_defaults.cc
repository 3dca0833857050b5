#include "sim/run_defaults.h"

#include "sim/bank_map.h"
#include "hw/block_arith.h"
#include "hw/fpga_power.h"
#include "hw/lut_estimate.h"

namespace ttsim {

Json run_defaults_json(const DeviceSpec& device, double clock_mhz, const KernelCalibration* calibration) {
  Json ops = Json::object(), dsp = Json::object(), source = Json::object();
  for (const auto& [name, op] : device.float_ops) {
    if (calibration && calibration->op_latency.count(name)) {
      // As KernelLatencyModel: the calibration's figure replaces the device's.
      ops[name] = calibration->op_latency.at(name);
      source[name] = "calibration " + calibration->name;
    } else {
      ops[name] = op.latency_at(clock_mhz);
      source[name] = "device " + device.source_file;
    }
    dsp[name] = op.dsp;
  }
  Json dev = device.to_json();
  dev["file"] = device.source_file;
  dev["operator_latency_cycles"] = ops;
  dev["operator_latency_source"] = source;
  dev["operator_dsp"] = dsp;
  const BankInstance bank;  // the memory model's defaults
  const memplan::HlsStorageRules storage;
  return {{"clock_mhz", clock_mhz},
          {"device", dev},
          {"memory_model",
           {{"ports_per_bank", bank.ports},
            {"word_bits", 32},
            {"bram36_words_per_port_cycle_per_block", 1},   // 36-bit port: one FP32 word
            {"uram288_words_per_port_cycle_per_block", 2},  // 72-bit row: two FP32 words
            {"bram_read_latency_cycles", device.bram_read_latency},
            {"uram_read_latency_cycles", device.uram_read_latency},
            {"write_latency_cycles", device.write_latency}}},
          {"lut_estimate", lut_estimate_json()},
          {"hls_storage",
           {{"complete_partition_threshold_elements", storage.complete_partition_threshold},
            {"lutram_max_bits", storage.lutram_max_bits}}}};
}

}  // namespace ttsim
