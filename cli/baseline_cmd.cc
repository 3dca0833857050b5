// `ttsim baseline`: the reference design's headline comparisons for one or more models —
// FPGA on-chip memory vs the GPU caching allocator's dense-training memory, FPGA energy
// per epoch vs GPU tensorized (TT-sequential, BTT) training energy per epoch — each ratio
// with the published figure, the inputs it rests on and a sensitivity table.

#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "models/dataset/dataset_lengths.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/torch_layers.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "sim/baseline/baseline.h"
#include "sim/baseline/fpga_card.h"
#include "hw/device_spec.h"
#include "hw/lut_estimate.h"
#include "sim/baseline/baseline_report.h"

namespace ttsim::cli {
namespace {

/// The options of `baseline`.
struct BaselineOptions {
  std::vector<std::string> models;
  std::string arch_path, device_path, json_out;
  BaselineSources src;
};

/// Parses `args` into `o`; false when --help was given (usage printed). Throws InputError
/// for a bad or missing option.
bool parse_baseline_options(const std::vector<std::string>& args, BaselineOptions& o) {
  po::options_description options("options");
  options.add_options()
      ("model", po::value<std::vector<std::string>>(&o.models)->required()->composing(),
       "model config; repeat for several (e.g. the 2/4/6-encoder presets)")
      ("arch", po::value<std::string>(&o.arch_path)->required(), "architecture config (configs/arch/*.json)")
      ("device", po::value<std::string>(&o.device_path)->required(), "FPGA device config (configs/devices/*.json)")
      ("gpu", po::value<std::string>(&o.src.gpu_file)->required(), "GPU config (configs/devices/rtx3090.json)")
      ("card", po::value<std::string>(&o.src.card_file)->default_value("configs/devices/u50_card.json"),
       "FPGA card constants: static and HBM power, card idle draw, ranges of the power coefficients")
      ("dataset-lengths", po::value<std::string>(&o.src.lengths_file)->default_value("configs/datasets/atis_lengths.json"),
       "token-length histogram that defines the epoch")
      ("split", po::value<std::string>(&o.src.split)->default_value("train"), "split of the histogram")
      ("json", po::value<std::string>(&o.json_out), "write the comparison, with every constant and its source, as JSON here");
  po::variables_map vm;
  return parse_options("baseline", "--model M [--model M2 ...] --arch A --device D --gpu G [--card C] [--json OUT]",
                       options, {}, args, vm);
}

int run_baseline_cmd(const std::vector<std::string>& args) {
  BaselineOptions o;
  if (!parse_baseline_options(args, o)) return 0;
  std::vector<NamedPath> inputs = {{"--arch", o.arch_path},
                                   {"--device", o.device_path},
                                   {"--gpu", o.src.gpu_file},
                                   {"--card", o.src.card_file},
                                   {"--dataset-lengths", o.src.lengths_file}};
  for (const auto& m : o.models) inputs.push_back({"--model", m});
  refuse_clashing_paths({{"--json", o.json_out}}, inputs);
  check_output_writable({"--json", o.json_out});
  const ArchSpec arch = load_arch_spec(o.arch_path);
  const DeviceSpec device = load_device_spec(o.device_path);
  const GpuSpec gpu = load_gpu_spec(o.src.gpu_file);
  const FpgaCardSpec card = load_fpga_card_spec(o.src.card_file);
  const auto lengths = dataset::load_dataset_lengths(o.src.lengths_file);
  const auto& hist = lengths.epoch_split(o.src.split);

  std::vector<BaselineResult> results;
  for (const auto& m : o.models) results.push_back(run_baseline(load_model_spec(m), arch, device, gpu, card, hist));

  std::cout << baseline_header(arch, device, gpu, o.src, hist.count) << baseline_table(results, o.src)
            << baseline_warnings(results, device);
  for (const auto& r : results) std::cout << "\n" << baseline_inputs(r, gpu, card, arch.clock_mhz);
  if (!o.json_out.empty()) {
    write_file_atomic(o.json_out, baseline_json(arch, device, gpu, card, o.src, results).dump(2) + "\n");
  }
  return 0;
}

const CommandRegistration kRegistration{
    {"baseline", "FPGA vs GPU memory and energy per epoch (the reference design's claims), with inputs and sensitivity",
     run_baseline_cmd}};

}  // namespace
}  // namespace ttsim::cli
