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
// Per line: engines, lanes per engine, nonlinear lanes ("own": each unit at the arch file's
// width; the first three lines), policy, cycles of the step (analytic
// list schedule; SystemC with port contention on the same arrays), the step's MAC ideal at
// the engines' total lanes (Σ task MACs / (engines · lanes)), the ratio, and the LUT
// estimate of the units with the engine count (sim/machine_luts.h machine_lut_terms on the
// same arrays: more users of each array's ports, no new arrays) against the device's LUTs.
// Then, for the structure the top has today (calls in a sequential region, which Vitis HLS
// starts together only when they are independent, on distinct instances and arrays): the step
// with its calls co-scheduled in groups (co_scheduled_cycles) on the one-call machine's arrays
// and with the arrays ignored, its critical path, and the dependence-driven schedule of the
// same unit counts.

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
#include "sim/step_report.h"
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

/// `arch` with p's engine count, nonlinear lanes (0: each unit at the arch file's own width)
/// and policy (one unit of each nonlinear kind).
ArchSpec with_point(ArchSpec arch, const Point& p) {
  arch.unit(ttsim::UnitKind::kContraction).count = p.engines;
  for (int k = 0; k < ttsim::kUnitKinds; ++k) {
    if (k != static_cast<int>(ttsim::UnitKind::kContraction) && p.nonlinear_lanes > 0) {
      arch.units[k].lanes = p.nonlinear_lanes;
    }
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

/// The on-chip arrays (indices into Machine::memories) a task's call binds: the arrays of its
/// buffers and of every argument slot of its shape (TaskShape::memories: the index array of
/// the contraction and loss modules, the row statistics in chain1 of softmax, LayerNorm and
/// the loss).
std::vector<int> bound_arrays(const ttsim::Task& t, const ttsim::machine::Machine& m) {
  std::vector<int> arrays;
  auto add = [&arrays](int a) {
    if (a >= 0 && std::find(arrays.begin(), arrays.end(), a) == arrays.end()) arrays.push_back(a);
  };
  for (int b : t.reads) add(m.memory_of_buffer[b]);
  for (int b : t.writes) add(m.memory_of_buffer[b]);
  for (int slot = 0; slot < ttsim_spec::kMaxArgumentSlots; ++slot) {
    add(ttsim::machine::memory_index(ttsim_spec::memory_of(t.shape.memories, slot)));
  }
  return arrays;
}

/// Co-scheduled groups of `seq`'s calls (run one call at a time; each call keeps its latency of
/// that run) under the rules by which Vitis HLS may start calls of a sequential region together
/// (UG1399 "Loop Parallelism": independent calls on distinct instances; calls sharing an array's
/// ports are serialised), with the assumption that the caller moves on when every call of the
/// group has ended, so a group costs its longest call. A group's calls have no data dependence,
/// share no buffer, are at most `engines` contraction calls and one call per other module and,
/// unless `arrays_free`, bind no array in common (bound_arrays) and run after every earlier
/// call (program order) that binds one of their arrays: HLS orders the calls on an array by
/// program order (its offsets are run-time values), and the arena plan reuses slots in that
/// order. With `arrays_free` the calls may run in any order their dependences allow, which
/// needs an arena plan of its own (more words live at once). The top's control flow (the
/// encoder loop, the per-layer and mode branches of the glue) is ignored, so the figure is
/// optimistic for the top as written. Groups are packed greedily by critical-path priority:
/// the ready call with the longest path to the end of the step, then every ready call that fits
/// and is no longer than it, in the same priority. `critical_path`: the longest dependence path
/// at these latencies, a lower bound of any schedule of them. Returns the step's cycles.
std::int64_t co_scheduled_cycles(const StepResult& seq, int engines, bool arrays_free, std::int64_t* critical_path) {
  const ttsim::TaskGraph& g = seq.graph();
  const ttsim::machine::Machine& m = *seq.machine;
  const int n = static_cast<int>(g.tasks.size());
  std::vector<std::vector<int>> arrays(n), buffers(n);
  std::vector<std::int64_t> latency(n), tail(n, 0);
  for (const ttsim::Task& t : g.tasks) {
    arrays[t.id] = bound_arrays(t, m);
    buffers[t.id] = t.reads;
    buffers[t.id].insert(buffers[t.id].end(), t.writes.begin(), t.writes.end());
    latency[t.id] = seq.run.schedule.tasks[t.id].end - seq.run.schedule.tasks[t.id].start;
  }
  // Longest path from each task's start to the step's end (tasks are in topological order).
  for (int id = n - 1; id >= 0; --id) {
    tail[id] += latency[id];
    for (int d : g.tasks[id].deps) tail[d] = std::max(tail[d], tail[id]);
  }
  *critical_path = 0;
  std::vector<int> priority(n);
  for (int id = 0; id < n; ++id) {
    priority[id] = id;
    *critical_path = std::max(*critical_path, tail[id]);
  }
  std::stable_sort(priority.begin(), priority.end(), [&tail](int a, int b) { return tail[a] > tail[b]; });
  // By array: its calls in program order, and the first of them not done yet.
  std::vector<std::vector<int>> calls_on(m.memories.size());
  for (int id : m.schedule.order) {
    for (int a : arrays[id]) calls_on[a].push_back(id);
  }
  std::vector<std::size_t> next_on(m.memories.size(), 0);
  std::vector<char> done(n, 0);
  std::vector<char> array_used(m.memories.size(), 0), buffer_used(g.buffers.size(), 0);
  std::vector<char> module_used(m.instances.size(), 0);
  std::int64_t cycles = 0;
  int left = n;
  std::vector<int> group;
  while (left > 0) {
    group.clear();
    std::fill(array_used.begin(), array_used.end(), 0);
    std::fill(buffer_used.begin(), buffer_used.end(), 0);
    std::fill(module_used.begin(), module_used.end(), 0);
    int contractions = 0;
    std::int64_t longest = -1;
    for (int id : priority) {
      if (done[id]) continue;
      bool fits = longest < 0 || latency[id] <= longest;
      for (int d : g.tasks[id].deps) fits = fits && done[d];
      if (!fits) continue;
      const bool contraction = g.tasks[id].op == ttsim::TaskOp::kContraction;
      const int instance = m.schedule.instance[id];
      fits = contraction ? contractions < engines : !module_used[instance];
      for (int b : buffers[id]) fits = fits && !buffer_used[b];
      if (!arrays_free) {
        for (int a : arrays[id]) fits = fits && !array_used[a] && calls_on[a][next_on[a]] == id;
      }
      if (!fits) continue;
      group.push_back(id);
      if (longest < 0) longest = latency[id];
      if (contraction) ++contractions; else module_used[instance] = 1;
      for (int b : buffers[id]) buffer_used[b] = 1;
      for (int a : arrays[id]) array_used[a] = 1;
    }
    for (int id : group) done[id] = 1;
    for (std::size_t a = 0; a < calls_on.size(); ++a) {
      while (next_on[a] < calls_on[a].size() && done[calls_on[a][next_on[a]]]) ++next_on[a];
    }
    cycles += longest;
    left -= static_cast<int>(group.size());
  }
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
    const Point points[] = {{1, 0, false}, {1, 0, true},  {2, 0, true},  {1, 8, false}, {1, 16, false},
                            {1, 32, false}, {1, 16, true}, {1, 32, true}, {2, 16, true},  {2, 32, true},
                            {3, 16, true},  {3, 32, true}};
    for (const Point& p : points) {
      const ArchSpec arch = with_point(base, p);
      const StepResult a = run(model, arch, device, false);
      const StepResult s = run(model, arch, device, true);
      const double ideal = static_cast<double>(ttsim::graph_macs(a.graph())) / (static_cast<double>(p.engines) * lanes);
      const std::string nl = p.nonlinear_lanes > 0 ? std::to_string(p.nonlinear_lanes) : "own";
      std::printf("%7d %8s %-10s %10lld %10lld %10.0f %6.2f %10.0f\n", p.engines, nl.c_str(),
                  p.parallel ? "parallel" : "sequential", static_cast<long long>(a.run.schedule.makespan),
                  static_cast<long long>(s.run.schedule.makespan), ideal,
                  static_cast<double>(a.run.schedule.makespan) / ideal, ttsim::machine_lut_terms(*a.machine, a.graph(), arch).total());
    }
    std::printf("\ncalls co-scheduled in groups (co_scheduled_cycles: each group starts together and costs its "
                "longest call; control flow ignored), one-call latencies, 16-lane nonlinear units\n");
    std::printf("%7s %16s %12s %14s %18s\n", "engines", "one-call arrays", "arrays free", "critical path",
                "dependence-driven");
    const StepResult seq = run(model, with_point(base, {1, 16, false}), device, false);
    for (int engines = 1; engines <= 3; ++engines) {
      const StepResult dep = run(model, with_point(base, {engines, 16, true}), device, false);
      std::int64_t path = 0;
      const std::int64_t c_arrays = co_scheduled_cycles(seq, engines, false, &path);
      const std::int64_t c_free = co_scheduled_cycles(seq, engines, true, &path);
      std::printf("%7d %16lld %12lld %14lld %18lld\n", engines, static_cast<long long>(c_arrays),
                  static_cast<long long>(c_free), static_cast<long long>(path),
                  static_cast<long long>(dep.run.schedule.makespan));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "concurrency_whatif: %s\n", e.what());
    return 2;
  }
  return 0;
}
