// `ttsim baseline`: the reference design's headline comparisons for one or more models —
// FPGA on-chip memory vs GPU dense-training memory, FPGA energy per epoch vs GPU
// tensorized (TT-sequential, BTT) training energy per epoch.

#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "models/dataset/dataset_lengths.h"
#include "models/gpu/gpu_spec.h"
#include "models/model_spec.h"
#include "sim/arch_spec.h"
#include "sim/baseline/baseline.h"
#include "sim/device_spec.h"

namespace ttsim::cli {
namespace {

int run_baseline_cmd(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::vector<std::string> models;
  std::string arch_path, device_path, gpu_path, lengths_path, json_out, split;
  options.add_options()
      ("model", po::value<std::vector<std::string>>(&models)->required()->composing(),
       "model config; repeat for several (e.g. the 2/4/6-encoder presets)")
      ("arch", po::value<std::string>(&arch_path)->required(), "architecture config (configs/arch/*.json)")
      ("device", po::value<std::string>(&device_path)->required(), "FPGA device config (configs/devices/*.json)")
      ("gpu", po::value<std::string>(&gpu_path)->required(), "GPU config (configs/devices/rtx3090.json)")
      ("dataset-lengths", po::value<std::string>(&lengths_path)->default_value("configs/datasets/atis_lengths.json"),
       "token-length histogram that defines the epoch")
      ("split", po::value<std::string>(&split)->default_value("train"), "split of the histogram")
      ("json", po::value<std::string>(&json_out), "write the comparison as JSON here");
  po::variables_map vm;
  if (!parse_options("baseline", "--model M [--model M2 ...] --arch A --device D --gpu G [--json OUT]",
                     options, {}, args, vm)) {
    return 0;
  }
  const ArchSpec arch = load_arch_spec(arch_path);
  const DeviceSpec device = load_device_spec(device_path);
  const GpuSpec gpu = load_gpu_spec(gpu_path);
  const auto lengths = dataset::load_dataset_lengths(lengths_path);
  const auto& hist = lengths.split(split);

  std::vector<BaselineResult> results;
  for (const auto& m : models) results.push_back(run_baseline(load_model_spec(m), arch, device, gpu, hist));

  std::cout << fmt::format("arch {} ({} MHz) on {}; GPU {}; epoch = {} split of {} ({} samples, {} length)\n\n",
                           arch.name, arch.clock_mhz, device.name, gpu.name, split, lengths_path, hist.count,
                           to_string(arch.sequence_length));
  std::cout << fmt::format("{:<14} {:>11} {:>13} {:>9} {:>9} | {:>9} {:>8} {:>11} | {:>11} {:>11} {:>8} {:>8}\n",
                           "model", "FPGA MB", "GPU dense MB", "mem x", "w/o fw x", "FPGA s", "FPGA W",
                           "FPGA J", "GPU TT J", "GPU BTT J", "vs TT", "vs BTT");
  for (const auto& r : results) {
    std::cout << fmt::format(
        "{:<14} {:>11.3f} {:>13.1f} {:>9.1f} {:>9.1f} | {:>9.2f} {:>8.2f} {:>11.1f} | {:>11.1f} {:>11.1f} {:>8.2f} {:>8.2f}\n",
        r.model, r.fpga_memory_bytes / 1e6, r.gpu_dense.memory.total() / 1e6, r.memory_reduction,
        r.memory_reduction_without_framework, r.fpga_epoch_seconds, r.fpga_power.total_watts(),
        r.fpga_energy_joules_per_epoch, r.gpu_tt.energy_joules_per_epoch, r.gpu_btt.energy_joules_per_epoch,
        r.energy_ratio_vs_gpu_tt, r.energy_ratio_vs_gpu_btt);
  }
  std::cout << "\nFPGA MB: bytes of the emitted build's on-chip arrays (machine description); GPU dense MB: weights + gradients + saved activations + "
               "peak temporaries + framework overhead (\"w/o fw\" excludes the framework's fixed bytes);\n"
               "J: joules per epoch; vs TT / vs BTT: GPU energy over FPGA energy. Published: 30-51x memory, "
               "up to 3.6-4x energy vs GPU tensorized training.\n";
  for (const auto& r : results) {
    if (r.fpga_over_device.empty()) continue;
    std::string what;
    for (const auto& o : r.fpga_over_device) what += (what.empty() ? "" : "; ") + o;
    std::cout << fmt::format("  {}: does not fit {}: {}\n", r.model, device.name, what);
  }
  for (const auto& r : results) {
    std::cout << fmt::format(
        "  {}: FPGA power static {:.2f} W + dynamic {:.2f} W; GPU TT {:.2f} s/epoch at {:.0f} W avg, "
        "{} kernels/step; GPU BTT {:.2f} s/epoch, {} kernels/step\n",
        r.model, r.fpga_power.static_watts, r.fpga_power.dynamic_watts(), r.gpu_tt.seconds_per_epoch,
        r.gpu_tt.average_power_watts, r.gpu_tt.kernels_per_step, r.gpu_btt.seconds_per_epoch,
        r.gpu_btt.kernels_per_step);
  }
  if (!json_out.empty()) {
    Json j;
    j["arch"] = arch.to_json();
    j["device"] = device.to_json();
    j["gpu"] = gpu.to_json();
    j["dataset_lengths"] = lengths_path;
    j["split"] = split;
    j["models"] = Json::array();
    for (const auto& r : results) j["models"].push_back(r.to_json());
    write_file_atomic(json_out, j.dump(2) + "\n");
  }
  return 0;
}

const CommandRegistration kRegistration{
    {"baseline", "FPGA vs GPU memory and energy per epoch (the reference design's claims)", run_baseline_cmd}};

}  // namespace
}  // namespace ttsim::cli
