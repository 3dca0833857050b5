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
#include "machine/machine_report.h"

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
  std::vector<MemoryPlan> plans;
  Json compare = Json::array();
  for (Strategy st : {Strategy::kNaive, Strategy::kGrouped, Strategy::kIdeal}) {
    MemoryOptions o = mo;
    o.strategy = st;
    plans.push_back(st == mo.strategy ? plan : memplan::plan_memory(graph, device, o));
    compare.push_back(memplan::plan_summary_json(plans.back()));
  }
  std::cout << "\n" << memplan::format_strategy_table(plans);
  Json j = memplan::plan_detail_json(plan, graph);
  j["emitted"] = false;
  j["compare"] = compare;
  return j;
}

/// The options of `memplan`.
struct MemplanOptions {
  std::string model_path, device_path, arch_path, strategy_text, json_out;
  std::int64_t uram_min_depth = machine::kUramMinBankWords;
  bool buffers = false, planner = false;
};

/// Parses `args` into `o` and checks them; false when --help was given (usage printed).
/// Throws InputError for a bad or missing option.
bool parse_memplan_options(const std::vector<std::string>& args, MemplanOptions& o) {
  po::options_description options("options");
  options.add_options()
      ("model", po::value<std::string>(&o.model_path)->required(), "model config (configs/models/*.json)")
      ("arch", po::value<std::string>(&o.arch_path)->required(),
       "architecture config (configs/arch/*.json): lanes per unit and flows of the build")
      ("device", po::value<std::string>(&o.device_path)->required(), "device config (configs/devices/*.json)")
      ("buffers", po::bool_switch(&o.buffers), "list every buffer of the step under its array: words and the tasks it lives over")
      ("planner", po::value<std::string>(&o.strategy_text)->implicit_value(""),
       "also print the memory planner's analysis (naive | grouped | ideal; default: the arch's "
       "memory strategy): what a top with one array per planned memory would need")
      ("uram-min-depth", po::value<std::int64_t>(&o.uram_min_depth)->default_value(machine::kUramMinBankWords),
       "planner analysis: addresses from which a memory goes to URAM288 rather than BRAM")
      ("json", po::value<std::string>(&o.json_out),
       "write the arrays (and the planner analysis) as JSON here (atomically)");
  po::variables_map vm;
  if (!parse_options("memplan", "--model M --arch A --device D [--buffers] [--planner [S]] [--json OUT]", options,
                     {}, args, vm)) {
    return false;
  }
  o.planner = vm.count("planner") > 0;
  if (o.uram_min_depth < 1) {
    throw InputError(fmt::format("--uram-min-depth: expected an integer >= 1, found {}", o.uram_min_depth));
  }
  if (!o.planner && !vm["uram-min-depth"].defaulted()) {
    throw InputError("--uram-min-depth: sets the planner analysis's URAM threshold; expected --planner with it");
  }
  if (o.planner && !o.strategy_text.empty()) {
    try {
      memplan::parse_strategy(o.strategy_text);
    } catch (const InputError&) {
      throw InputError(fmt::format("--planner: expected one of naive, grouped, ideal (or no value: the arch's "
                                   "/memory/strategy), found \"{}\"", o.strategy_text));
    }
  }
  return true;
}

int run_memplan(const std::vector<std::string>& args) {
  MemplanOptions o;
  if (!parse_memplan_options(args, o)) return 0;
  // Options and the output checked before anything is printed.
  refuse_clashing_paths({{"--json", o.json_out}},
                        {{"--model", o.model_path}, {"--arch", o.arch_path}, {"--device", o.device_path}});
  check_output_writable({"--json", o.json_out});
  const ModelSpec model = load_model_spec(o.model_path);
  const ArchSpec arch = load_arch_spec(o.arch_path);
  const DeviceSpec device = load_device_spec(o.device_path);
  check_clock_within_device(arch.clock_mhz, device, o.arch_path + ": /clock_mhz", o.device_path);
  // The machine of the design, as `simulate` and `emit` describe it (analytic fidelity: only
  // its arrays are reported here).
  const auto ev = evaluate_design(model, arch, device, nullptr, Fidelity::kAnalytic);
  const machine::Machine& m = ev->machine();
  const TaskGraph& graph = ev->step.graph();
  std::cout << fmt::format("model {} ({} encoder{}; {} tasks, {} buffers), arch {}, device {}{}\n", model.name,
                           model.encoders, model.encoders == 1 ? "" : "s", graph.tasks.size(), graph.buffers.size(),
                           arch.name, device.name, recompute_note(arch))
            << machine::arrays_table(m, graph) << (o.buffers ? machine::buffers_listing(m, graph) : std::string())
            << machine::fit_summary(m, ev->luts, ev->ff_terms.total(), arch.clock_mhz, device, ev->over_device);
  Json j = machine::arrays_json(m, graph, ev->over_device);
  j["model"] = model.name;
  j["arch"] = arch.name;
  j["device"] = device.name;
  if (o.planner) j["planner"] = planner_analysis(graph, arch, device, o.strategy_text, o.uram_min_depth);
  if (!o.json_out.empty()) write_file_atomic(o.json_out, j.dump(2) + "\n");
  // The arrays are printed (and written) either way; a build over the device is refused as
  // `simulate` and `emit` refuse it.
  require_fits(*ev, model, arch, device, o.device_path);
  return 0;
}

const CommandRegistration kRegistration(
    {"memplan", "on-chip arrays of the emitted build (storage, partition, blocks, buffers, fit); --planner adds the planner analysis",
     run_memplan});

}  // namespace
}  // namespace ttsim::cli
