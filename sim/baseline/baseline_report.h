#pragma once
// The FPGA vs GPU comparisons of sim/baseline/baseline.h as `ttsim baseline` prints and
// writes them: the header naming the inputs, the summary table (one row per model) with the
// published figures, the warnings (a design that does not fit, a LUT estimate above the
// device's), each model's inputs with its sensitivity table, and the JSON document with
// every constant and its source. MB are 10^6 bytes, J per epoch, W, s.

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/gpu/gpu_spec.h"
#include "hw/arch_spec.h"
#include "sim/baseline/baseline.h"
#include "sim/baseline/fpga_card.h"
#include "hw/device_spec.h"

namespace ttsim {

/// The files and the epoch a baseline run rests on.
struct BaselineSources {
  std::string gpu_file, card_file;  ///< GPU config, FPGA card constants
  std::string lengths_file, split;  ///< token-length histogram and its split (the epoch)
};

/// "arch .. (MHz) on <device>; GPU .. (eager PyTorch, op by op); epoch = <split> split of
/// <lengths_file> (<samples> samples, <sequence length> length)" and a blank line.
std::string baseline_header(const ArchSpec& arch, const DeviceSpec& device, const GpuSpec& gpu,
                            const BaselineSources& src, std::int64_t samples);

/// The summary table (FPGA and GPU MB, memory ratio, FPGA s / W / J, GPU-TT and GPU-BTT s
/// and J, energy ratios), the published figures and where every constant is listed.
std::string baseline_table(const std::vector<BaselineResult>& results, const BaselineSources& src);

/// One line per model that does not fit `device` (the resources over it) and per model
/// whose LUT estimate exceeds the device's LUTs; "" when none.
std::string baseline_warnings(const std::vector<BaselineResult>& results, const DeviceSpec& device);

/// One model's inputs: the memory ratio with the GPU dense memory by kind, the energy
/// ratios with the FPGA power by component and each GPU run's step, the named scenarios,
/// and the sensitivity table. `clock_mhz`: the arch clock.
std::string baseline_inputs(const BaselineResult& r, const GpuSpec& gpu, const FpgaCardSpec& card, double clock_mhz);

/// The --json document: arch, device, gpu, gpu_op_model, fpga_card (their resolved JSON
/// with sources), fpga_power_model (scenarios, coefficient source, LUT constants),
/// dataset_lengths, split, models [BaselineResult::to_json].
Json baseline_json(const ArchSpec& arch, const DeviceSpec& device, const GpuSpec& gpu, const FpgaCardSpec& card,
                   const BaselineSources& src, const std::vector<BaselineResult>& results);

}  // namespace ttsim
