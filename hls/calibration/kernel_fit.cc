#include "hls/calibration/kernel_fit.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/reports/latency_rules.h"

namespace ttsim::hls {
namespace {

ArchSpec with_calibration(ArchSpec arch, const std::map<std::string, int>& op_latency,
                          const std::map<TaskOp, KernelParams>& kernels) {
  auto k = std::make_shared<KernelCalibration>();
  k->name = "fit";
  k->op_latency = op_latency;
  k->kernels = kernels;
  arch.calibration = k;
  return arch;
}

std::vector<std::string> distinct_sources(const std::vector<const KernelSample*>& samples) {
  std::vector<std::string> out;
  for (const auto* s : samples) {
    if (std::find(out.begin(), out.end(), s->source) == out.end()) out.push_back(s->source);
  }
  return out;
}

std::string join(const std::vector<std::string>& v, std::size_t max = 8) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > max) s += fmt::format(", … ({} in all)", v.size());
  return s;
}

}  // namespace

std::map<std::string, int> bindnode_op_latencies(const std::vector<KernelSample>& samples,
                                                 const DeviceSpec& device) {
  std::map<std::string, int> out;
  for (const auto& s : samples) {
    for (const auto& b : s.op_binds) {
      if (!b.latency) continue;
      const std::string op = b.op_type == "fsub" ? "fadd" : b.op_type;
      if (!device.float_ops.count(op)) continue;
      auto [it, inserted] = out.emplace(op, static_cast<int>(*b.latency));
      if (!inserted) it->second = std::max(it->second, static_cast<int>(*b.latency));
    }
  }
  return out;
}

SampleOptions screening_options(const std::vector<std::string>& keep, const ArchSpec& arch,
                                const DeviceSpec& device) {
  SampleOptions o{keep};
  o.part = device.part;
  o.part_from = fmt::format("device {} ({})", device.name, device.source_file);
  o.clock_ns = 1000.0 / arch.clock_mhz;
  o.clock_from = fmt::format("arch {} ({}, {} MHz)", arch.name, arch.source_file, arch.clock_mhz);
  return o;
}

std::int64_t predict_sample(const KernelSample& s, const KernelLatencyModel& model) {
  return model.cycles_for_trips(unit_of(s.op), s.op, s.trips());
}

double observed_depth(const LoopObservation& o) {
  if (o.depth) return static_cast<double>(pipeline_depth_term(*o.depth, RuleSet::kHlsStates));
  if (!o.ii) {
    throw InputError(fmt::format("loop {} (in {}): neither PipelineDepth nor PipelineII is known, so its depth "
                                 "cannot be observed (the model's II is not put in its place)", o.name, o.rtl_module));
  }
  return static_cast<double>(o.latency - (o.trip - 1) * *o.ii);
}

namespace {

/// The inputs every latency model of one kernel fit shares.
struct FitContext {
  const ArchSpec& arch;
  const DeviceSpec& device;
  const std::map<std::string, int>& op_latency;
  const TaskGraph* step;

  /// A latency model with `params`, bound to the step's instances when there is a step.
  KernelLatencyModel model_with(const std::map<TaskOp, KernelParams>& params) const {
    KernelLatencyModel m(with_calibration(arch, op_latency, params), device);
    if (step) m.bind_instances(*step);
    return m;
  }
};

/// Index of loop class `name` in `classes`; throws InputError when kernel `op` has none.
std::size_t class_index(const std::vector<LoopLatency>& classes, TaskOp op, const std::string& name) {
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (classes[i].name == name) return i;
  }
  throw InputError(fmt::format("kernel {}: loop {} is not in its specification", to_string(op), name));
}

/// Fits the depth adjustment of every loop the samples run (trip >= 1): the mean observed
/// depth minus the model's (`classes`), into r's loops and params with the reported
/// depth and II where the reports agree on one.
void fit_loop_depths(TaskOp op, const std::vector<const KernelSample*>& samples,
                     const std::vector<LoopLatency>& classes, KernelFitRecord& r) {
  std::map<std::string, double> depth_sum, report_depth_sum;
  std::map<std::string, int> report_depth_n;
  std::map<std::string, std::set<std::int64_t>> report_iis;
  for (const KernelSample* s : samples) {
    for (const LoopObservation& o : s->loops) {
      if (o.trip < 1) continue;
      const LoopLatency& c = classes[class_index(classes, op, o.name)];
      LoopFitRecord& f = r.loops[o.name];
      f.model_ii = c.ii;
      f.model_depth = c.depth;
      ++f.samples;
      depth_sum[o.name] += observed_depth(o) - c.depth;
      if (o.depth) {
        report_depth_sum[o.name] += static_cast<double>(*o.depth);
        ++report_depth_n[o.name];
      }
      report_iis[o.name].insert(o.ii ? *o.ii : -1);
    }
  }
  if (r.loops.empty()) {
    throw InputError(fmt::format("kernel {} (module {}): no loop with a trip count >= 1 in {}", to_string(op),
                                 r.module, join(r.reports)));
  }
  for (auto& [name, f] : r.loops) {
    r.params.depth_adjust[name] = depth_sum[name] / f.samples;
    if (report_depth_n[name] > 0) f.report_depth = report_depth_sum[name] / report_depth_n[name];
    const auto& iis = report_iis[name];
    if (iis.size() == 1 && *iis.begin() > 0) f.report_ii = static_cast<int>(*iis.begin());
  }
}

/// The overhead of kernel `op`: the mean of what the samples' module latency holds beyond
/// their calibrated loops (`depth_adjust`), never negative (the latency model adds no fewer
/// than 0 cycles; calibration files refuse it).
double fit_overhead(TaskOp op, const std::vector<const KernelSample*>& samples,
                    const std::map<std::string, double>& depth_adjust, const FitContext& ctx) {
  KernelParams loops_only{depth_adjust, 0.0};
  const KernelLatencyModel m = ctx.model_with({{op, loops_only}});
  const UnitKind unit = unit_of(op);
  double sum = 0;
  for (const KernelSample* s : samples) {
    sum += static_cast<double>(s->latency - m.cycles_for_trips(unit, op, s->trips()));
  }
  return std::max(0.0, sum / static_cast<double>(samples.size()));
}

/// The largest residuals of the fitted model `fitted` over the samples: of the module
/// latency, and of each loop's latency.
void fill_residuals(TaskOp op, const std::vector<const KernelSample*>& samples, const KernelLatencyModel& fitted,
                    KernelFitRecord& r) {
  const std::vector<LoopLatency> cal = fitted.loop_classes(unit_of(op), op);
  for (const KernelSample* s : samples) {
    r.max_abs_residual_cycles = std::max(r.max_abs_residual_cycles,
                                         std::fabs(static_cast<double>(predict_sample(*s, fitted) - s->latency)));
    for (const LoopObservation& o : s->loops) {
      if (o.trip < 1) continue;
      const LoopLatency& c = cal[class_index(cal, op, o.name)];
      const std::int64_t cycles = (o.trip - 1) * c.ii + c.depth;
      LoopFitRecord& f = r.loops[o.name];
      f.max_abs_residual_cycles =
          std::max(f.max_abs_residual_cycles, std::fabs(static_cast<double>(cycles - o.latency)));
    }
  }
}

}  // namespace

KernelFitRecord fit_kernel(TaskOp op, const std::vector<const KernelSample*>& samples, const ArchSpec& arch,
                           const DeviceSpec& device, const std::map<std::string, int>& op_latency,
                           const TaskGraph* step) {
  const FitContext ctx{arch, device, op_latency, step};
  const std::vector<std::string> reports = distinct_sources(samples);
  const std::string module = samples.empty() ? std::string("ttsim_") + to_string(op) : samples.front()->module;
  if (samples.empty()) {
    throw InputError(fmt::format("kernel {} (module {}): no report sample to fit", to_string(op), module));
  }
  const UnitKind unit = unit_of(op);
  // The model's derived II and depth of every loop class, with the reports' operator latencies.
  const KernelLatencyModel base = ctx.model_with({});
  const std::vector<LoopLatency> classes = base.loop_classes(unit, op);
  KernelFitRecord r;
  r.module = module;
  r.lanes = arch.unit(unit).lanes;
  r.samples = static_cast<int>(samples.size());
  r.reports = reports;
  fit_loop_depths(op, samples, classes, r);
  // Overhead: what the module latency holds beyond its calibrated loops.
  r.params.overhead = fit_overhead(op, samples, r.params.depth_adjust, ctx);
  const KernelLatencyModel fitted = ctx.model_with({{op, r.params}});
  fill_residuals(op, samples, fitted, r);
  return r;
}

Calibration fit_calibration(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                            const std::string& model_name, const TaskGraph* step) {
  if (set.samples.empty()) {
    std::string skipped;
    for (const auto& s : set.skipped) skipped += fmt::format("\n  {} in {}: {}", s.module, s.source, s.reason);
    throw InputError(fmt::format(
        "no csynth module maps to a simulator kernel: expected modules named ttsim_<op> "
        "(hls/kernels/modules.h) with exact or ranged latency; modules found: {}{}",
        set.unmapped.empty() ? "none" : join(set.unmapped), skipped.empty() ? "" : "; skipped:" + skipped));
  }
  Calibration c;
  c.arch = arch.name;
  c.device = device.name;
  c.model = model_name;
  std::set<std::string> tools;
  std::string timing_note;
  for (const auto& s : set.samples) {
    if (s.part != device.part && !s.kept) {
      throw InputError(fmt::format("{}: report part {} differs from device {} ({}) part {}", s.source, s.part,
                                   device.name, device.source_file, device.part));
    }
    if (!s.target_clock_ns) throw InputError(s.source + ": module " + s.module + ": no target clock period");
    if (std::fabs(*s.target_clock_ns - 1000.0 / arch.clock_mhz) > 0.01 && !s.kept) {
      throw InputError(fmt::format("{}: report target clock {} ns differs from arch {} ({}) clock {} MHz ({:.3f} ns)",
                                   s.source, *s.target_clock_ns, arch.name, arch.source_file, arch.clock_mhz,
                                   1000.0 / arch.clock_mhz));
    }
    tools.insert(s.tool_version);
    if (std::find(c.reports.begin(), c.reports.end(), s.source) == c.reports.end()) c.reports.push_back(s.source);
    // Timing not met: the design runs at the slowest estimated clock, not the target.
    if (s.estimated_clock_ns && *s.estimated_clock_ns > *s.target_clock_ns + 1e-9 &&
        (!c.achievable_clock_ns || *s.estimated_clock_ns > *c.achievable_clock_ns)) {
      c.achievable_clock_ns = *s.estimated_clock_ns;
      timing_note = (fmt::format(
          "{}: {}: estimated clock {:.3f} ns above the {:.3f} ns target (timing not met); calibration uses the "
          "achievable clock {:.3f} ns ({:.1f} MHz)",
          s.source, s.module, *s.estimated_clock_ns, *s.target_clock_ns, *s.estimated_clock_ns,
          1000.0 / *s.estimated_clock_ns));
    }
    if (s.latency_source == "cosim") {
      c.notes.push_back(fmt::format("{}: {}: csynth latency undef; co-simulation latency from {} used as ground truth",
                                    s.source, s.module, s.cosim_report));
    }
  }
  if (!timing_note.empty()) c.notes.insert(c.notes.begin(), timing_note);
  for (const auto& t : tools) c.tool_version += (c.tool_version.empty() ? "" : ", ") + t;
  c.part = device.part;
  c.target_clock_ns = *set.samples.front().target_clock_ns;
  c.op_latency = bindnode_op_latencies(set.samples, device);
  std::map<TaskOp, std::vector<const KernelSample*>> by_op;
  for (const auto& s : set.samples) by_op[s.op].push_back(&s);
  for (const auto& [op, samples] : by_op) c.kernels[op] = fit_kernel(op, samples, arch, device, c.op_latency, step);
  return c;
}

double LooResult::error_pct() const {
  if (!predicted || reported == 0) return 0;
  return 100.0 * static_cast<double>(*predicted - reported) / static_cast<double>(reported);
}

std::vector<LooResult> leave_one_out(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                                     const std::map<std::string, int>& op_latency, const TaskGraph* step) {
  std::map<TaskOp, std::vector<const KernelSample*>> by_op;
  for (const auto& s : set.samples) by_op[s.op].push_back(&s);
  std::vector<LooResult> out;
  for (const auto& [op, samples] : by_op) {
    const std::vector<std::string> reports = distinct_sources(samples);
    if (reports.size() < 2) continue;
    for (const std::string& left_out : reports) {
      std::vector<const KernelSample*> rest, held;
      for (const auto* s : samples) (s->source == left_out ? held : rest).push_back(s);
      std::optional<KernelFitRecord> f;
      std::string note;
      try {
        f = fit_kernel(op, rest, arch, device, op_latency, step);
      } catch (const InputError& e) {
        note = e.what();
      }
      for (const auto* s : held) {
        LooResult r{s->source, s->module, s->bound, op, s->latency, std::nullopt, note};
        if (f) {
          KernelLatencyModel m(with_calibration(arch, op_latency, {{op, f->params}}), device);
          if (step) m.bind_instances(*step);
          r.predicted = predict_sample(*s, m);
        }
        out.push_back(r);
      }
    }
  }
  return out;
}

}  // namespace ttsim::hls
