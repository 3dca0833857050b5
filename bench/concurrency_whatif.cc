// What concurrency would buy, before it is built: the step of a model on an arch, one call
// at a time as the emitted top runs it, and as what-if studies (simulate_step with
// StepOptions::what_if_study: the engine dispatches any ready task to any free unit of its
// class — data dependences only —, on the arrays of the machine built one call at a time)
// with more contraction engines and wider nonlinear units. No command prices such a design
// (machine::check_buildable refuses it); this prints how far each concurrency step goes, so
// the build's next steps are chosen from figures. Run from the workspace root:
//
//   bazel run -c opt //bench:concurrency_whatif -- [MODEL [ARCH [DEVICE]]]
//
// defaults configs/models/atis_2enc.json, configs/arch/u50_paper.json, configs/devices/u50.json.
// Per line: engines, lanes per engine, nonlinear lanes, policy, cycles of the step (analytic
// list schedule; SystemC with port contention on the same arrays), the step's MAC ideal at
// the engines' total lanes (Σ task MACs / (engines · lanes)), the ratio, and the LUT
// estimate of the units with the engine count (sim/machine_luts.h machine_lut_terms on the
// same arrays: more users of each array's ports, no new arrays) against the device's LUTs.
// Then, for the structure the top has today (calls in a sequential region, which Vitis HLS
// runs together only when they are independent, on distinct instances and arrays): the
// consecutive calls of the built step it may already start together, and the step with its
// calls co-scheduled in groups (co_scheduled_cycles) on the one-call machine's arrays and
// with the arrays ignored, beside the dependence-driven schedule of the same unit counts.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "hls/include/kernel_spec.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "models/model_spec.h"
#include "sim/machine_luts.h"
#include "sim/step_sim.h"

namespace {

using ttsim::ArchSpec;
using ttsim::StepOptions;
using ttsim::StepResult;

struct Point {
  int engines;
  int nonlinear_lanes;
  bool parallel;
};

std::int64_t step_macs(const StepResult& r) {
  std::int64_t macs = 0;
  for (const ttsim::Task& t : r.graph().tasks) macs += t.macs;
  return macs;
}

/// `arch` with p's engine count, nonlinear lanes and policy (one unit of each nonlinear kind).
ArchSpec with_point(ArchSpec arch, const Point& p) {
  arch.unit(ttsim::UnitKind::kContraction).count = p.engines;
  for (int k = 0; k < ttsim::kUnitKinds; ++k) {
    if (k != static_cast<int>(ttsim::UnitKind::kContraction)) arch.units[k].lanes = p.nonlinear_lanes;
  }
  arch.policy = p.parallel ? ttsim::SchedulePolicy::kParallel : ttsim::SchedulePolicy::kSequential;
  arch.parallel_merges = p.parallel;
  arch.qkv_reschedule = false;
  arch.fusion = false;
  return arch;
}

StepResult run(const ttsim::ModelSpec& model, const ArchSpec& arch, const ttsim::DeviceSpec& device, bool systemc) {
  ttsim::EngineOptions e;
  e.analytic = !systemc;
  e.port_contention = systemc;
  e.occupancy = false;
  return ttsim::simulate_step(model, arch, device, StepOptions::what_if_study(e));
}

/// Calls of `seq` that follow one another in program order on distinct instances with no data
/// dependence, no shared buffer and no shared array of the machine: pairs the built top's
/// sequential region lets the HLS scheduler start together, which `simulate` prices one after
/// the other. Returns the pairs (disjoint) and, in `cycles`, the most that overlapping them saves
/// (the shorter call of each pair).
int adjacent_overlappable_pairs(const StepResult& seq, std::int64_t* cycles) {
  const ttsim::TaskGraph& g = seq.graph();
  const ttsim::machine::Machine& m = *seq.machine;
  const int index_mem = ttsim::machine::memory_index(ttsim_spec::kIndexMem);
  auto arrays_of = [&](const ttsim::Task& t) {
    std::vector<int> a;
    for (int b : t.reads) a.push_back(m.memory_of_buffer[b]);
    for (int b : t.writes) a.push_back(m.memory_of_buffer[b]);
    if (t.op == ttsim::TaskOp::kContraction || t.op == ttsim::TaskOp::kLoss) a.push_back(index_mem);
    return a;
  };
  int pairs = 0;
  *cycles = 0;
  const std::vector<int>& order = m.schedule.order;
  for (std::size_t i = 0; i + 1 < order.size(); ++i) {
    const ttsim::Task& a = g.tasks[order[i]];
    const ttsim::Task& b = g.tasks[order[i + 1]];
    if (m.schedule.instance[a.id] == m.schedule.instance[b.id]) continue;
    if (std::find(b.deps.begin(), b.deps.end(), a.id) != b.deps.end()) continue;
    const std::vector<int> aa = arrays_of(a), ba = arrays_of(b);
    bool shared = false;
    for (int x : aa) shared = shared || std::find(ba.begin(), ba.end(), x) != ba.end();
    if (shared) continue;
    const ttsim::TaskTime& ta = seq.run.schedule.tasks[a.id];
    const ttsim::TaskTime& tb = seq.run.schedule.tasks[b.id];
    *cycles += std::min(ta.end - ta.start, tb.end - tb.start);
    ++pairs;
    ++i;
  }
  return pairs;
}

/// Cycles of `seq`'s step (run one call at a time) when its calls are co-scheduled as Vitis HLS
/// schedules calls in a sequential region (shared/reference/hls-scheduling.md, "Task-level
/// parallelism"; UG1399 "Loop Parallelism"): a group of calls starts in one state of the
/// caller's FSM and the next group starts when all of them have ended, so a group costs its
/// longest call. The calls of a group are on distinct instances (at most `engines` contraction
/// calls, one call per other module), have no data dependence and share no buffer; with
/// `arrays_free` false they also share no array of the one-call machine (calls sharing an
/// array's ports are serialised). Groups are packed greedily: the first ready call in program
/// order, then every further ready call that fits. Each call keeps its latency of the
/// one-call run. `groups_out`: groups of more than one call.
std::int64_t co_scheduled_cycles(const StepResult& seq, int engines, bool arrays_free, int* groups_out) {
  const ttsim::TaskGraph& g = seq.graph();
  const ttsim::machine::Machine& m = *seq.machine;
  const int n = static_cast<int>(g.tasks.size());
  const int index_mem = ttsim::machine::memory_index(ttsim_spec::kIndexMem);
  std::vector<std::vector<int>> arrays(n), buffers(n);
  for (const ttsim::Task& t : g.tasks) {
    for (const std::vector<int>* list : {&t.reads, &t.writes}) {
      for (int b : *list) {
        arrays[t.id].push_back(m.memory_of_buffer[b]);
        buffers[t.id].push_back(b);
      }
    }
    // The contraction and loss modules take the index array at every call (modules.h).
    if (t.op == ttsim::TaskOp::kContraction || t.op == ttsim::TaskOp::kLoss) arrays[t.id].push_back(index_mem);
  }
  std::vector<char> done(n, 0);
  std::vector<char> array_used(m.memories.size(), 0), buffer_used(g.buffers.size(), 0);
  std::vector<char> module_used(m.instances.size(), 0);
  std::int64_t cycles = 0;
  int left = n, groups = 0;
  std::vector<int> group;
  while (left > 0) {
    group.clear();
    std::fill(array_used.begin(), array_used.end(), 0);
    std::fill(buffer_used.begin(), buffer_used.end(), 0);
    std::fill(module_used.begin(), module_used.end(), 0);
    int contractions = 0;
    for (int id : m.schedule.order) {
      if (done[id]) continue;
      bool fits = true;
      for (int d : g.tasks[id].deps) fits = fits && done[d];
      if (!fits) continue;
      const bool contraction = g.tasks[id].op == ttsim::TaskOp::kContraction;
      const int instance = m.schedule.instance[id];
      fits = contraction ? contractions < engines : !module_used[instance];
      for (int b : buffers[id]) fits = fits && !buffer_used[b];
      if (!arrays_free) {
        for (int a : arrays[id]) fits = fits && !array_used[a];
      }
      if (!fits) continue;
      group.push_back(id);
      if (contraction) ++contractions; else module_used[instance] = 1;
      for (int b : buffers[id]) buffer_used[b] = 1;
      for (int a : arrays[id]) array_used[a] = 1;
    }
    std::int64_t longest = 0;
    for (int id : group) {
      const ttsim::TaskTime& t = seq.run.schedule.tasks[id];
      longest = std::max(longest, t.end - t.start);
      done[id] = 1;
    }
    cycles += longest;
    left -= static_cast<int>(group.size());
    if (group.size() > 1) ++groups;
  }
  *groups_out = groups;
  return cycles;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model_file = argc > 1 ? argv[1] : "configs/models/atis_2enc.json";
  const std::string arch_file = argc > 2 ? argv[2] : "configs/arch/u50_paper.json";
  const std::string device_file = argc > 3 ? argv[3] : "configs/devices/u50.json";
  try {
    const ttsim::ModelSpec model = ttsim::load_model_spec(model_file);
    const ArchSpec base = ttsim::load_arch_spec(arch_file);
    const ttsim::DeviceSpec device = ttsim::load_device_spec(device_file);
    const int lanes = base.unit(ttsim::UnitKind::kContraction).lanes;
    std::printf("%s on %s (%s), %d lanes per contraction engine; what-if: data dependences only, arrays of the "
                "one-call machine; the device has %lld LUTs\n",
                model.name.c_str(), base.name.c_str(), device.name.c_str(), lanes, static_cast<long long>(device.lut));
    std::printf("%7s %8s %-10s %10s %10s %10s %6s %10s\n", "engines", "nl_lanes", "policy", "analytic", "systemc",
                "mac_ideal", "ratio", "lut_est");
    const Point points[] = {{1, 8, false}, {1, 16, false}, {1, 32, false}, {1, 16, true}, {1, 32, true},
                            {2, 16, true}, {2, 32, true},  {3, 16, true},  {3, 32, true}};
    for (const Point& p : points) {
      const ArchSpec arch = with_point(base, p);
      const StepResult a = run(model, arch, device, false);
      const StepResult s = run(model, arch, device, true);
      const double ideal = static_cast<double>(step_macs(a)) / (static_cast<double>(p.engines) * lanes);
      std::printf("%7d %8d %-10s %10lld %10lld %10.0f %6.2f %10.0f\n", p.engines, p.nonlinear_lanes,
                  p.parallel ? "parallel" : "sequential", static_cast<long long>(a.run.schedule.makespan),
                  static_cast<long long>(s.run.schedule.makespan), ideal,
                  static_cast<double>(a.run.schedule.makespan) / ideal, ttsim::machine_lut_terms(*a.machine, a.graph(), arch).total());
    }
    {
      const StepResult seq = run(model, base, device, false);
      std::int64_t saved = 0;
      const int pairs = adjacent_overlappable_pairs(seq, &saved);
      std::printf("\nas built (%s): %d pairs of consecutive calls are independent on distinct instances and arrays "
                  "(the HLS scheduler may start each pair together); overlapping them would save at most %lld of "
                  "%lld cycles\n",
                  base.name.c_str(), pairs, static_cast<long long>(saved),
                  static_cast<long long>(seq.run.schedule.makespan));
    }
    std::printf("\nco-scheduled calls (a sequential region: each group of calls starts together, the next after "
                "all end; greedy packing in program order), one-call latencies, %d-lane nonlinear units\n", 16);
    std::printf("%7s %16s %8s %16s %8s %18s\n", "engines", "one-call arrays", "groups", "arrays free", "groups",
                "dependence-driven");
    for (int engines = 1; engines <= 3; ++engines) {
      const StepResult seq = run(model, with_point(base, {1, 16, false}), device, false);
      const StepResult dep = run(model, with_point(base, {engines, 16, true}), device, false);
      int g_arrays = 0, g_free = 0;
      const std::int64_t c_arrays = co_scheduled_cycles(seq, engines, false, &g_arrays);
      const std::int64_t c_free = co_scheduled_cycles(seq, engines, true, &g_free);
      std::printf("%7d %16lld %8d %16lld %8d %18lld\n", engines, static_cast<long long>(c_arrays), g_arrays,
                  static_cast<long long>(c_free), g_free, static_cast<long long>(dep.run.schedule.makespan));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "concurrency_whatif: %s\n", e.what());
    return 2;
  }
  return 0;
}
