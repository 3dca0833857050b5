// `ttsim memplan --model M --arch A --device D [--buffers] [--planner [S]] [--json OUT]`:
// the on-chip memories of the emitted build (machine/machine.h, from evaluate_design: the
// description `simulate` and `emit` use) — every array with its storage, size, partition and
// blocks, the step's buffers it holds with their words and the tasks they live over, the
// peak of live words, and the fit on the device. With --planner, the memory planner's
// analysis (sim/memplan: what a top with one array per planned memory would need, for the
// naive, grouped and ideal strategies) follows; the build does not declare those memories.

#include <iostream>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/output_files.h"
#include "cli/options.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "machine/machine.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "hw/arch_spec.h"
#include "sim/design_eval.h"
#include "hw/device_spec.h"
#include "sim/memplan/memory_plan.h"
#include "sim/memplan/plan_report.h"
#include "sim/occupancy.h"

namespace ttsim::cli {
namespace {

using memplan::MemoryOptions;
using memplan::MemoryPlan;
using memplan::Strategy;

constexpr UnitKind kUnits[] = {UnitKind::kContraction, UnitKind::kSoftmax, UnitKind::kLayerNorm,
                               UnitKind::kGelu,        UnitKind::kElementwise, UnitKind::kLoss,
                               UnitKind::kUpdate};

/// The planner analysis of `graph` (buffers at their fused footprints, as the planner
/// plans them) for the arch's lanes, in `strategy` and the three strategies compared.
Json planner_analysis(TaskGraph graph, const ArchSpec& arch, const DeviceSpec& device,
                      const std::string& strategy_text, std::int64_t uram_min_depth) {
  MemoryOptions mo;
  mo.strategy = arch.memory == MemoryStrategy::kNaive ? Strategy::kNaive : Strategy::kGrouped;
  if (!strategy_text.empty()) mo.strategy = memplan::parse_strategy(strategy_text);
  mo.uram_min_depth = uram_min_depth;
  for (UnitKind u : kUnits) mo.lanes[u] = arch.unit(u).lanes;
  const auto footprint = buffer_footprints(graph, fused_buffers(graph, arch.fusion));
  for (Buffer& b : graph.buffers) {
    if (footprint[b.id] != b.words) {
      b.words = footprint[b.id];
      b.shape = {b.words};
    }
  }
  const MemoryPlan plan = memplan::plan_memory(graph, device, mo);
  std::cout << "\nmemory planner analysis (not emitted: the build declares the arrays above)\n"
            << memplan::format_plan_summary(plan);
  std::cout << "\nstrategy   BRAM36  URAM288  efficiency  fits  shortfall\n";
  Json compare = Json::array();
  for (Strategy st : {Strategy::kNaive, Strategy::kGrouped, Strategy::kIdeal}) {
    MemoryOptions o = mo;
    o.strategy = st;
    const MemoryPlan p = st == mo.strategy ? plan : memplan::plan_memory(graph, device, o);
    std::cout << fmt::format("{:<9} {:>7} {:>8} {:>10.1f}%  {:<4}  {}\n", to_string(st), p.bram36_blocks,
                             p.uram_blocks, 100.0 * p.efficiency, p.fit.fits ? "yes" : "NO",
                             p.fit.fits ? std::string("-")
                                        : fmt::format("{} BRAM36 + {} URAM288 = {:.2f} MiB",
                                                      p.fit.bram36_short, p.fit.uram_short,
                                                      p.fit.bytes_short / 1048576.0));
    compare.push_back(memplan::plan_summary_json(p));
  }
  Json j = memplan::plan_detail_json(plan, graph);
  j["emitted"] = false;
  j["compare"] = compare;
  return j;
}

int run_memplan(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string model_path, device_path, arch_path, strategy_text, json_out;
  std::int64_t uram_min_depth = 2048;
  options.add_options()
      ("model", po::value<std::string>(&model_path)->required(), "model config (configs/models/*.json)")
      ("arch", po::value<std::string>(&arch_path)->required(),
       "architecture config (configs/arch/*.json): lanes per unit and flows of the build")
      ("device", po::value<std::string>(&device_path)->required(), "device config (configs/devices/*.json)")
      ("buffers", po::bool_switch(), "list every buffer of the step under its array: words and the tasks it lives over")
      ("planner", po::value<std::string>(&strategy_text)->implicit_value(""),
       "also print the memory planner's analysis (naive | grouped | ideal; default: the arch's "
       "memory strategy): what a top with one array per planned memory would need")
      ("uram-min-depth", po::value<std::int64_t>(&uram_min_depth)->default_value(2048),
       "planner analysis: addresses from which a memory goes to URAM288 rather than BRAM")
      ("json", po::value<std::string>(&json_out),
       "write the arrays (and the planner analysis) as JSON here (atomically)");
  po::variables_map vm;
  if (!parse_options("memplan", "--model M --arch A --device D [--buffers] [--planner [S]] [--json OUT]", options,
                     {}, args, vm)) {
    return 0;
  }
  if (uram_min_depth < 1) {
    throw InputError(fmt::format("--uram-min-depth: expected an integer >= 1, found {}", uram_min_depth));
  }
  // Options and the output checked before anything is printed.
  if (vm.count("planner") && !strategy_text.empty()) {
    try {
      memplan::parse_strategy(strategy_text);
    } catch (const InputError&) {
      throw InputError(fmt::format("--planner: expected one of naive, grouped, ideal (or no value: the arch's "
                                   "memory_strategy), found \"{}\"", strategy_text));
    }
  }
  refuse_clashing_paths({{"--json", json_out}}, {{"--model", model_path}, {"--arch", arch_path}, {"--device", device_path}});
  check_output_writable({"--json", json_out});
  const ModelSpec model = load_model_spec(model_path);
  const ArchSpec arch = load_arch_spec(arch_path);
  const DeviceSpec device = load_device_spec(device_path);
  // The machine of the design, as `simulate` and `emit` describe it (analytic fidelity: only
  // its arrays are reported here).
  const auto ev = evaluate_design(model, arch, device, nullptr, Fidelity::kAnalytic);
  const machine::Machine& m = ev->machine();
  const TaskGraph& graph = ev->step.graph();
  std::cout << fmt::format("model {} ({} encoders; {} tasks, {} buffers), arch {}, device {}\n", model.name,
                           model.encoders, graph.tasks.size(), graph.buffers.size(), arch.name, device.name);
  std::cout << "on-chip arrays of the emitted top (banks: dim 2 of <array>[rows][banks], completely partitioned; "
               "peak live: the most words of the step's buffers in the array at once)\n";
  std::cout << "array         storage       words      banks  BRAM36  URAM288  buffers   peak live  use\n";
  Json jm = Json::array();
  for (const machine::Memory& mem : m.memories) {
    std::cout << fmt::format("{:<13} {:<8} {:>11} {:>10} {:>7} {:>8} {:>8} {:>11} {:>4.0f}%\n", mem.array,
                             machine::to_string(mem.storage), grouped(mem.words),
                             mem.partition > 1 ? fmt::format("{} banks", mem.partition) : std::string("1 (none)"),
                             grouped(mem.bram36), grouped(mem.uram288), mem.graph_buffers.size(),
                             grouped(mem.peak_live_words), 100.0 * mem.peak_live_words / std::max<std::int64_t>(1, mem.words));
    Json slots = Json::array(), bufs = Json::array();
    for (const auto& sl : mem.buffers) slots.push_back({{"slot", sl.name}, {"offset", sl.offset}, {"words", sl.words}});
    for (int id : mem.graph_buffers) {
      const Buffer& b = graph.buffers[id];
      bufs.push_back({{"name", b.name}, {"class", to_string(b.cls)}, {"words", b.words},
                      {"first_task", b.first_task}, {"last_task", b.last_task}});
    }
    jm.push_back({{"array", mem.array}, {"holds", mem.holds}, {"storage", machine::to_string(mem.storage)},
                  {"words", mem.words}, {"width_bits", mem.width_bits}, {"partition", mem.partition},
                  {"partition_type", machine::to_string(mem.partition_type)},
                  {"bram36", mem.bram36}, {"uram288", mem.uram288}, {"peak_live_words", mem.peak_live_words},
                  {"slots", slots}, {"buffers", bufs}});
  }
  if (vm["buffers"].as<bool>()) {
    for (const machine::Memory& mem : m.memories) {
      std::cout << "\n" << mem.array << " (" << mem.holds << ")\n";
      for (int id : mem.graph_buffers) {
        const Buffer& b = graph.buffers[id];
        std::cout << fmt::format("  {:<36} {:<10} {:>10} words  tasks {}..{}\n", b.name, to_string(b.cls),
                                 grouped(b.words), b.first_task, b.last_task);
      }
    }
  }
  const auto over = ev->over_device;
  std::cout << fmt::format("total: BRAM36 {} of {}, URAM288 {} of {}, on-chip arrays {:.3f} MiB; fits: {}\n",
                           grouped(m.bram36()), grouped(device.bram36), grouped(m.uram288()), grouped(device.uram288),
                           m.onchip_bytes() / 1048576.0, over.empty() ? "yes" : "NO");
  for (const auto& o : over) std::cout << "  over the device: " << o << "\n";
  Json j{{"model", model.name}, {"arch", arch.name}, {"device", device.name}, {"memories", jm},
         {"bram36", m.bram36()}, {"uram288", m.uram288()}, {"onchip_bytes", m.onchip_bytes()},
         {"fits", over.empty()}, {"over_device", over}};
  if (vm.count("planner")) j["planner"] = planner_analysis(graph, arch, device, strategy_text, uram_min_depth);
  if (!json_out.empty()) write_file_atomic(json_out, j.dump(2) + "\n");
  // The arrays are printed (and written) either way; a build over the device is refused as
  // `simulate` and `emit` refuse it.
  require_fits(*ev, model, arch, device, device_path);
  return 0;
}

const CommandRegistration kRegistration(
    {"memplan", "on-chip arrays of the emitted build (storage, partition, blocks, buffers, fit); --planner adds the planner analysis",
     run_memplan});

}  // namespace
}  // namespace ttsim::cli
