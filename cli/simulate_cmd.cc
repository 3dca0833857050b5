// `ttsim simulate`: one training step of a model on an accelerator architecture and a
// device, executed by the SystemC engine on the machine the emitted build is
// (evaluate_design); step, stage, layer and kernel cycles, the kernel instances, every
// on-chip array with its storage, partition, blocks and buffers, occupancy, fit, power and
// the epoch latency over a dataset length histogram. With
// --loops, a table of every kernel loop the step runs (hls/include/kernel_spec.h loop
// classes): tasks, total trips, the derived II with its RecMII / ResMII bounds, depth and
// cycles (hw/kernel_latency.h).

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "machine/machine.h"
#include "sim/design_eval.h"
#include "models/dataset/dataset_lengths.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "hw/calibration.h"
#include "sim/run_defaults.h"
#include "hw/device_spec.h"
#include "sim/epoch.h"
#include "hw/kernel_latency.h"
#include "hw/fpga_power.h"
#include "sim/step_power.h"
#include "sim/step_report.h"
#include "sim/step_sim.h"
#include "sim/trace.h"

namespace ttsim::cli {
namespace {

std::string mib(std::int64_t bytes) { return fmt::format("{:.3f} MiB", bytes / 1048576.0); }

int run_simulate(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string model_path, arch_path, device_path, lengths_path, calibration, json_out, trace_out;
  std::string split = "train";
  options.add_options()
      ("model", po::value<std::string>(&model_path)->required(), "model config (configs/models/*.json)")
      ("arch", po::value<std::string>(&arch_path)->required(), "architecture config (configs/arch/*.json)")
      ("device", po::value<std::string>(&device_path)->required(), "device config (configs/devices/*.json)")
      ("dataset-lengths", po::value<std::string>(&lengths_path),
       "token-length histogram (configs/datasets/*_lengths.json); enables the epoch latency")
      ("split", po::value<std::string>(&split)->default_value("train"), "split of the histogram to sum over")
      ("calibration", po::value<std::string>(&calibration),
       "calibration file from `ttsim calibrate` (configs/calibration/*.json): fitted per-loop depth "
       "adjustments and kernel overheads, operator latencies and power coefficients (the II stays the one "
       "derived from the kernel specification); refused for another part or clock")
      ("json", po::value<std::string>(&json_out), "write the full result as JSON here")
      ("trace", po::value<std::string>(&trace_out), "write a Chrome/Perfetto trace-event JSON here")
      ("loops", po::bool_switch(),
       "print (and put in --json as \"loops\") every kernel loop the step runs: tasks, trips, II, RecMII, "
       "ResMII, depth, cycles");
  po::variables_map vm;
  if (!parse_options("simulate",
                     "--model M --arch A --device D [--dataset-lengths F] [--json OUT] [--trace T] [--loops]",
                     options, {}, args, vm)) {
    return 0;
  }
  // Outputs: distinct from each other and from every input, folders writable, before any work.
  const std::vector<NamedPath> outputs = {{"--json", json_out}, {"--trace", trace_out}};
  refuse_clashing_paths(outputs, {{"--model", model_path},
                                  {"--arch", arch_path},
                                  {"--device", device_path},
                                  {"--dataset-lengths", lengths_path},
                                  {"--calibration", calibration}});
  for (const auto& o : outputs) check_output_writable(o);
  const ModelSpec model = load_model_spec(model_path);
  ArchSpec arch = load_arch_spec(arch_path);
  DeviceSpec device = load_device_spec(device_path);
  std::string calibration_used = fmt::format("uncalibrated defaults from {}/{}", arch.name, device.name);
  std::string clock_note;  // why the run's clock is not the arch file's
  if (!calibration.empty()) {
    const Calibration cal = load_calibration(calibration);
    const double arch_mhz = arch.clock_mhz;
    apply_calibration(cal, arch, device);  // refuses another part or clock
    if (arch.clock_mhz != arch_mhz) clock_note = " (achievable clock from calibration: timing not met)";
    std::string kernels;
    for (const auto& [op, k] : cal.kernels) kernels += (kernels.empty() ? "" : ", ") + std::string(to_string(op));
    calibration_used = fmt::format("{} (part {}, {} ns, tool {}; kernels {}; others: defaults from {}/{}{})",
                                   calibration, cal.part, cal.target_clock_ns, cal.tool_version, kernels,
                                   arch.name, device.name, cal.power ? "; power coefficients fitted" : "");
  }
  if (arch.clock_mhz > device.max_clock_mhz) {
    throw InputError(fmt::format("{}: /clock_mhz: expected at most the device's {} MHz ({}), found {}",
                                 arch_path, device.max_clock_mhz, device_path, arch.clock_mhz));
  }
  std::optional<dataset::DatasetLengths> lengths;
  if (!lengths_path.empty()) lengths = dataset::load_dataset_lengths(lengths_path);

  // One evaluation (sim/design_eval.h), as explore's SystemC fidelity and baseline run it:
  // refused before any simulation when the emitted top cannot carry out the arch
  // (ConfigError at its pointer); a design whose instances or memories exceed the device
  // exits 2 naming the resource.
  const auto eval = evaluate_design(model, arch, device, lengths ? &lengths->split(split) : nullptr);
  require_fits(*eval, model, arch, device, device_path);
  const machine::Machine& mach = eval->machine();
  const StepResult& r = eval->step;
  Json j = step_json(r, arch);
  const std::int64_t dsp = mach.dsp();
  j["model"] = model.name;
  j["arch"] = arch.to_json();
  j["device"] = device.name;
  j["bram36_blocks"] = mach.bram36();
  j["uram_blocks"] = mach.uram288();
  j["dsp"] = dsp;
  j["fits"] = true;
  j["lut_estimate"] = eval->luts;
  Json ji = Json::array(), jm = Json::array();
  for (const auto& k : mach.instances) {
    ji.push_back({{"module", k.module}, {"op", to_string(k.op)}, {"count", k.count}, {"lanes", k.lanes},
                  {"dsp_per_instance", k.dsp}, {"call_sites", k.call_sites}});
  }
  for (const auto& m : mach.memories) {
    jm.push_back({{"array", m.array}, {"holds", m.holds}, {"storage", machine::to_string(m.storage)},
                  {"words", m.words}, {"width_bits", m.width_bits}, {"partition", m.partition},
                  {"partition_type", machine::to_string(m.partition_type)},
                  {"bram36", m.bram36}, {"uram288", m.uram288}, {"slots", m.buffers.size()},
                  {"graph_buffers", m.graph_buffers.size()}, {"peak_live_words", m.peak_live_words}});
  }
  j["machine"] = {{"instances", ji},
                  {"memories", jm},
                  {"schedule", {{"tasks", mach.schedule.order.size()}, {"overlap_groups", Json::array()}}},
                  {"onchip_bytes", mach.onchip_bytes()}};
  const std::optional<EpochResult>& epoch = eval->epoch;
  if (epoch) {
    Json by = Json::array();
    for (const auto& l : epoch->by_length) {
      by.push_back({{"length", l.length}, {"samples", l.samples}, {"step_cycles", l.step_cycles}});
    }
    j["epoch"] = {{"split", split}, {"samples", epoch->samples}, {"by_length", by}};
    j["epoch_cycles"] = epoch->cycles;
    j["epoch_seconds"] = epoch->seconds;
  } else {
    j["epoch_cycles"] = nullptr;
    j["epoch_seconds"] = nullptr;
  }
  // Power from the padded step's activity (sim/power); energy over the epoch. A device
  // file without power coefficients gives none (null in the JSON).
  if (eval->power) {
    const PowerBreakdown& power = *eval->power;
    j["power_watts"] = {{"static", power.static_watts},
                        {"dynamic", power.dynamic_watts()},
                        {"total", power.total_watts()},
                        {"by_component",
                         {{"dsp", power.dsp_watts},
                          {"bram", power.bram_watts},
                          {"uram", power.uram_watts},
                          {"logic", power.logic_watts},
                          {"clock", power.clock_watts}}}};
  } else {
    j["power_watts"] = nullptr;
  }
  j["energy_joules_per_step"] = eval->step_joules ? Json(*eval->step_joules) : Json(nullptr);
  j["energy_joules_per_epoch"] = eval->epoch_joules ? Json(*eval->epoch_joules) : Json(nullptr);

  const auto st = stage_cycles(r.graph(), r.run.schedule);
  const double mhz = arch.clock_mhz;
  auto ms = [&](std::int64_t c) { return fmt::format("{:.3f} ms", c / (mhz * 1e3)); };
  j["calibration"] = calibration.empty() ? Json(nullptr) : Json(calibration);
  j["calibration_used"] = calibration_used;
  j["defaults_used"] = run_defaults_json(device, arch.clock_mhz, arch.calibration.get());
  std::cout << "calibration: " << calibration_used << "\n";
  std::cout << fmt::format("model {} ({} encoders, {} tokens/step) on arch {} ({:.4g} MHz){}, device {}\n",
                           model.name, model.encoders, r.tokens, arch.name, mhz, clock_note, device.name);
  std::cout << fmt::format("step cycles {:>14}  {}\n", grouped(r.run.schedule.makespan), ms(r.run.schedule.makespan));
  std::cout << fmt::format("  forward   {:>14}  {}\n", grouped(st.forward), ms(st.forward));
  std::cout << fmt::format("  backward  {:>14}  {}\n", grouped(st.backward), ms(st.backward));
  std::cout << fmt::format("  update    {:>14}  {}\n", grouped(st.update), ms(st.update));
  std::cout << fmt::format("analytic (no port contention) {} cycles; {} tasks, {} events\n",
                           grouped(r.analytic_cycles), r.graph().tasks.size(), r.run.schedule.events);
  if (epoch) {
    std::cout << fmt::format("epoch ({} split, {} samples, {} length): {} cycles = {:.3f} s\n", split,
                             grouped(epoch->samples), to_string(arch.sequence_length), grouped(epoch->cycles),
                             epoch->seconds);
  } else {
    std::cout << "epoch: not computed (pass --dataset-lengths)\n";
  }
  if (eval->power) {
    const PowerBreakdown& power = *eval->power;
    std::cout << fmt::format("power: static {:.2f} W + dynamic {:.2f} W = {:.2f} W; energy {:.4f} J/step{}\n",
                             power.static_watts, power.dynamic_watts(), power.total_watts(), *eval->step_joules,
                             eval->epoch_joules ? fmt::format(", {:.1f} J/epoch", *eval->epoch_joules) : std::string());
  } else {
    std::cout << "power: not computed (" << device.source_file << " has no power coefficients)\n";
  }
  const auto& pk = r.occupancy.peak_bytes;
  std::cout << fmt::format("on-chip peak: params {}, grads {}, activations {}, temporaries {}, total {}\n",
                           mib(pk[0]), mib(pk[1]), mib(pk[2]), mib(pk[3]), mib(r.occupancy.peak_total_bytes));
  std::cout << fmt::format("built: BRAM36 {} / {}, URAM288 {} / {}; DSP {} / {} ({:.1f} %); on-chip arrays {}; fits: yes\n",
                           grouped(mach.bram36()), grouped(device.bram36), grouped(mach.uram288()),
                           grouped(device.uram288), grouped(dsp), grouped(device.dsp), 100.0 * dsp / device.dsp,
                           mib(mach.onchip_bytes()));
  const double luts = eval->luts;
  if (device.lut > 0 && luts > static_cast<double>(device.lut)) {
    std::cout << fmt::format("warning: LUT estimate {:.0f}k above the device's {:.0f}k (an estimate with assumed control "
                             "LUTs per bank, not csynth)\n",
                             luts / 1000, device.lut / 1000.0);
  }
  std::cout << fmt::format("\nkernel instances (one per module, shared by its call sites; calls run one at a time)\n");
  std::cout << "module                  count  lanes   DSP/inst  call sites\n";
  for (const auto& k : mach.instances) {
    if (k.call_sites == 0) continue;
    std::cout << fmt::format("{:<22} {:>6} {:>6} {:>10} {:>11}\n", k.module, k.count, k.lanes, grouped(k.dsp),
                             k.call_sites);
  }
  std::cout << "\non-chip memories (top.cc arrays, the banks the simulator's ports model; banks: dim 2 of "
               "<array>[rows][banks], completely partitioned, 2 ports each; peak live: the most words of the step's "
               "buffers in it at once)\n";
  std::cout << "array         holds                                  storage       words      banks  BRAM36  URAM288  "
               "buffers  peak live\n";
  for (const auto& m : mach.memories) {
    std::cout << fmt::format("{:<13} {:<38} {:<8} {:>12} {:>10} {:>7} {:>8} {:>8} {:>10}\n", m.array, m.holds,
                             machine::to_string(m.storage), grouped(m.words),
                             m.partition > 1 ? fmt::format("{} banks", m.partition) : std::string("1 (none)"),
                             grouped(m.bram36), grouped(m.uram288), m.graph_buffers.size(),
                             grouped(m.peak_live_words));
  }
  std::cout << "\nkernel             lanes  tasks      busy cycles  utilization\n";
  for (const auto& k : j["kernels"]) {
    std::cout << fmt::format("{:<18} {:>5}  {:>5}  {:>15}  {:>10.1f} %\n", k["name"].get<std::string>(),
                             k.contains("lanes") ? std::to_string(k["lanes"].get<int>()) : "",
                             k["tasks"].get<int>(), grouped(k["busy_cycles"].get<std::int64_t>()),
                             100.0 * k["utilization"].get<double>());
  }
  std::cout << "\nlayer              tasks            MACs      busy cycles      start        end\n";
  for (const auto& l : j["layers"]) {
    std::cout << fmt::format("{:<18} {:>5}  {:>14}  {:>15}  {:>9}  {:>9}\n", l["layer"].get<std::string>(),
                             l["tasks"].get<int>(), grouped(l["macs"].get<std::int64_t>()),
                             grouped(l["busy_cycles"].get<std::int64_t>()),
                             grouped(l["start"].get<std::int64_t>()), grouped(l["end"].get<std::int64_t>()));
  }
  if (vm["loops"].as<bool>()) {
    // Every loop class the step's tasks run, by kernel (TaskOp) and specification order.
    struct LoopRow {
      std::string kernel, loop;
      int lanes = 0, tasks = 0, ii = 0, rec_mii = 0, res_mii = 0, depth = 0;
      std::int64_t trips = 0, cycles = 0;
    };
    KernelLatencyModel lat(arch, device);
    lat.bind_instances(r.graph());  // the II each module instance is scheduled at
    std::map<std::pair<int, std::string>, LoopRow> rows;
    std::map<std::pair<int, std::string>, int> order;
    for (const Task& t : r.graph().tasks) {
      for (const LoopLatency& l : lat.loops(t.unit, t.op, t.shape)) {
        int index = 0;
        const ttsim_spec::KernelSpec& ks = kernel_spec(t.op);
        for (int i = 0; i < ks.n_loops; ++i) {
          if (l.name == ks.loops[i].name) index = i;
        }
        LoopRow& row = rows[{static_cast<int>(t.op) * 16 + index, l.name}];
        row.kernel = to_string(t.op);
        row.loop = l.name;
        row.lanes = arch.unit(t.unit).lanes;
        ++row.tasks;
        row.trips += l.trip;
        row.cycles += l.cycles;
        row.ii = std::max(row.ii, l.ii);
        row.rec_mii = std::max(row.rec_mii, l.rec_mii);
        row.res_mii = std::max(row.res_mii, l.res_mii);
        row.depth = l.depth;
      }
    }
    Json jl = Json::array();
    std::cout << "\nkernel          loop                    lanes  tasks           trips   II  RecMII  ResMII  depth"
                 "           cycles\n";
    for (const auto& [key, row] : rows) {
      std::cout << fmt::format("{:<15} {:<23} {:>5} {:>6} {:>15} {:>4} {:>7} {:>7} {:>6} {:>16}\n", row.kernel,
                               row.loop, row.lanes, row.tasks, grouped(row.trips), row.ii, row.rec_mii, row.res_mii,
                               row.depth, grouped(row.cycles));
      jl.push_back({{"kernel", row.kernel}, {"loop", row.loop}, {"lanes", row.lanes}, {"tasks", row.tasks},
                    {"trips", row.trips}, {"ii", row.ii}, {"rec_mii", row.rec_mii}, {"res_mii", row.res_mii},
                    {"depth", row.depth}, {"cycles", row.cycles}});
    }
    std::cout << "(II, RecMII, ResMII: the module instance's, the largest over its calls (arguments sharing a memory pool its ports), as emitted in PIPELINE II; cycles: Σ over tasks of (trip − 1) · II + depth; task overheads not included)\n";
    j["loops"] = jl;
  }
  // Every output rendered first, then written all or none.
  std::vector<std::pair<std::string, std::string>> files;
  if (!json_out.empty()) files.emplace_back(json_out, j.dump(2) + "\n");
  if (!trace_out.empty()) files.emplace_back(trace_out, chrome_trace_json(r, arch));
  write_files_atomic(files);
  return 0;
}

const CommandRegistration kRegistration{
    {"simulate", "simulate one training step (SystemC) and the epoch of a design", run_simulate}};

}  // namespace
}  // namespace ttsim::cli
