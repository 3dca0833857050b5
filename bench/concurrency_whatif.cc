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

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "concurrency_whatif: %s\n", e.what());
    return 2;
  }
  return 0;
}
