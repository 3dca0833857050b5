// `ttsim memplan --model M --device D [--arch A] [--strategy S] [--json OUT] [--detail]`:
// the on-chip memory plan of one training step (sim/memplan): BRAM36 / URAM288 blocks,
// efficiency, device fit with the shortfall, the per-class table and a comparison of
// the naive, grouped and ideal strategies.

#include <iostream>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"
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

int run_memplan(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string model_path, device_path, arch_path, strategy_text, json_out;
  std::int64_t uram_min_depth = 2048;
  options.add_options()
      ("model", po::value<std::string>(&model_path)->required(), "model config (configs/models/*.json)")
      ("device", po::value<std::string>(&device_path)->required(), "device config (configs/devices/*.json)")
      ("arch", po::value<std::string>(&arch_path),
       "architecture config (configs/arch/*.json): lanes per unit, flows, fusion and the default "
       "strategy, as `ttsim simulate` plans them; without it every unit has 1 lane, every TT layer "
       "uses BTT and nothing is fused")
      ("strategy", po::value<std::string>(&strategy_text),
       "naive | grouped | ideal (default: the arch's memory strategy, else grouped)")
      ("uram-min-depth", po::value<std::int64_t>(&uram_min_depth)->default_value(2048),
       "addresses from which a memory goes to URAM288 rather than BRAM")
      ("json", po::value<std::string>(&json_out),
       "write the plan as JSON here (totals, memory instances, placements and the strategy comparison)");
  po::variables_map vm;
  if (!parse_options("memplan", "--model M --device D [--arch A] [--strategy S] [--json OUT]", options,
                     {}, args, vm)) {
    return 0;
  }
  if (uram_min_depth < 1) {
    throw InputError(fmt::format("--uram-min-depth: expected an integer >= 1, found {}", uram_min_depth));
  }
  const ModelSpec model = load_model_spec(model_path);
  const DeviceSpec device = load_device_spec(device_path);
  GraphOptions graph_opts;
  MemoryOptions mo;
  mo.strategy = Strategy::kGrouped;
  mo.uram_min_depth = uram_min_depth;
  std::string arch_name = "none (1 lane per unit)";
  bool fusion = false;
  if (!arch_path.empty()) {
    const ArchSpec arch = load_arch_spec(arch_path);
    arch_name = arch.name;
    graph_opts.flow_by_kind = arch.flow_by_kind;
    for (UnitKind u : kUnits) mo.lanes[u] = arch.unit(u).lanes;
    mo.strategy = arch.memory == MemoryStrategy::kNaive ? Strategy::kNaive : Strategy::kGrouped;
    fusion = arch.fusion;
  }
  if (!strategy_text.empty()) mo.strategy = memplan::parse_strategy(strategy_text);

  // Buffers fused through small streams (arch fusion) are planned with their fused
  // footprint, exactly as the simulator plans them (sim/plan_banks.h).
  TaskGraph graph = build_training_graph(model, graph_opts);
  const auto footprint = buffer_footprints(graph, fused_buffers(graph, fusion));
  for (Buffer& b : graph.buffers) {
    if (footprint[b.id] != b.words) {
      b.words = footprint[b.id];
      b.shape = {b.words};
    }
  }
  const MemoryPlan plan = memplan::plan_memory(graph, device, mo);
  std::cout << fmt::format("model {} ({} encoders; {} tasks, {} buffers), arch {}, device {}\n",
                           model.name, model.encoders, graph.tasks.size(), graph.buffers.size(),
                           arch_name, device.name);
  std::cout << memplan::format_plan_summary(plan);

  std::cout << "\nstrategy   BRAM36  URAM288  efficiency  fits  shortfall\n";
  Json compare = Json::array();
  for (Strategy s : {Strategy::kNaive, Strategy::kGrouped, Strategy::kIdeal}) {
    MemoryOptions o = mo;
    o.strategy = s;
    const MemoryPlan p = s == mo.strategy ? plan : memplan::plan_memory(graph, device, o);
    std::cout << fmt::format("{:<9} {:>7} {:>8} {:>10.1f}%  {:<4}  {}\n", to_string(s), p.bram36_blocks,
                             p.uram_blocks, 100.0 * p.efficiency, p.fit.fits ? "yes" : "NO",
                             p.fit.fits ? std::string("-")
                                        : fmt::format("{} BRAM36 + {} URAM288 = {:.2f} MiB",
                                                      p.fit.bram36_short, p.fit.uram_short,
                                                      p.fit.bytes_short / 1048576.0));
    compare.push_back(memplan::plan_summary_json(p));
  }
  if (!json_out.empty()) {
    Json j = memplan::plan_detail_json(plan, graph);
    j["model"] = model.name;
    j["arch"] = arch_name;
    j["compare"] = compare;
    write_file_atomic(json_out, j.dump(2) + "\n");
  }
  return 0;
}

const CommandRegistration kRegistration(
    {"memplan", "on-chip memory plan (BRAM36/URAM288 blocks, efficiency, fit) of a model",
     run_memplan});

}  // namespace
}  // namespace ttsim::cli
