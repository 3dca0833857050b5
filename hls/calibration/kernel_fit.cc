#include "hls/calibration/kernel_fit.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/reports/latency_fit.h"

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

UnitKind unit_of_op(TaskOp op) {
  for (int k = 0; k < kUnitKinds; ++k) {
    for (TaskOp o : ops_of_unit(static_cast<UnitKind>(k))) {
      if (o == op) return static_cast<UnitKind>(k);
    }
  }
  throw std::invalid_argument(std::string("no unit executes ") + to_string(op));
}

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

std::int64_t predict_sample(const KernelSample& s, const KernelLatencyModel& model) {
  return model.cycles_for_trips(unit_of_op(s.op), s.op, s.trips());
}

KernelFitRecord fit_kernel(TaskOp op, const std::vector<const KernelSample*>& samples, const ArchSpec& arch,
                           const DeviceSpec& device, const std::map<std::string, int>& op_latency) {
  const std::vector<std::string> reports = distinct_sources(samples);
  const std::string module = samples.empty() ? std::string("ttsim_") + to_string(op) : samples.front()->module;
  if (reports.size() < 2) {
    throw InputError(fmt::format("kernel {} (module {}): {} report{} ({}); the fit needs at least 2 reports of "
                                 "the kernel at different shapes (trip counts)",
                                 to_string(op), module, reports.size(), reports.size() == 1 ? "" : "s",
                                 join(reports)));
  }
  const KernelLatencyModel base(with_calibration(arch, op_latency, {}), device);
  const std::vector<int> depth = base.base_depths(op);
  std::vector<LatencySample> rows;
  for (const KernelSample* s : samples) {
    LatencySample m;
    m.source = s->source;
    m.trips = s->trips();
    m.latency = static_cast<double>(s->latency);
    for (std::size_t i = 0; i < s->loops.size(); ++i) {
      m.latency -= depth[i];
      LatencySample l;
      l.source = s->source + ":" + s->loops[i].name;
      l.trips = {s->loops[i].trip};
      l.latency = static_cast<double>(s->loops[i].latency - depth[i]);
      l.invocations = 0;
      rows.push_back(l);
    }
    rows.push_back(m);
  }
  KernelLatencyFit f;
  try {
    f = fit_kernel_latency(rows);
  } catch (const InputError& e) {
    throw InputError(fmt::format("kernel {} (module {}): {}", to_string(op), module, e.what()));
  }
  KernelFitRecord r;
  r.module = module;
  r.params = KernelParams{f.ii, f.depth, f.overhead};
  r.samples = static_cast<int>(samples.size());
  r.reports = reports;
  const KernelLatencyModel fitted(with_calibration(arch, op_latency, {{op, r.params}}), device);
  for (const KernelSample* s : samples) {
    r.max_abs_residual_cycles = std::max(r.max_abs_residual_cycles,
                                         std::fabs(static_cast<double>(predict_sample(*s, fitted) - s->latency)));
  }
  return r;
}

Calibration fit_calibration(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                            const std::string& model_name) {
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
  for (const auto& s : set.samples) {
    if (s.part != device.part) {
      throw InputError(fmt::format("{}: report part {} differs from device {} ({}) part {}", s.source, s.part,
                                   device.name, device.source_file, device.part));
    }
    if (!s.target_clock_ns) throw InputError(s.source + ": module " + s.module + ": no target clock period");
    if (std::fabs(*s.target_clock_ns - 1000.0 / arch.clock_mhz) > 0.01) {
      throw InputError(fmt::format("{}: report target clock {} ns differs from arch {} ({}) clock {} MHz ({:.3f} ns)",
                                   s.source, *s.target_clock_ns, arch.name, arch.source_file, arch.clock_mhz,
                                   1000.0 / arch.clock_mhz));
    }
    tools.insert(s.tool_version);
    if (std::find(c.reports.begin(), c.reports.end(), s.source) == c.reports.end()) c.reports.push_back(s.source);
  }
  for (const auto& t : tools) c.tool_version += (c.tool_version.empty() ? "" : ", ") + t;
  c.part = device.part;
  c.target_clock_ns = *set.samples.front().target_clock_ns;
  c.op_latency = bindnode_op_latencies(set.samples, device);
  std::map<TaskOp, std::vector<const KernelSample*>> by_op;
  for (const auto& s : set.samples) by_op[s.op].push_back(&s);
  for (const auto& [op, samples] : by_op) c.kernels[op] = fit_kernel(op, samples, arch, device, c.op_latency);
  return c;
}

double LooResult::error_pct() const {
  if (!predicted || reported == 0) return 0;
  return 100.0 * static_cast<double>(*predicted - reported) / static_cast<double>(reported);
}

std::vector<LooResult> leave_one_out(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                                     const std::map<std::string, int>& op_latency) {
  std::map<TaskOp, std::vector<const KernelSample*>> by_op;
  for (const auto& s : set.samples) by_op[s.op].push_back(&s);
  std::vector<LooResult> out;
  for (const auto& [op, samples] : by_op) {
    const std::vector<std::string> reports = distinct_sources(samples);
    if (reports.size() < 3) continue;
    for (const std::string& left_out : reports) {
      std::vector<const KernelSample*> rest, held;
      for (const auto* s : samples) (s->source == left_out ? held : rest).push_back(s);
      std::optional<KernelFitRecord> f;
      std::string note;
      try {
        f = fit_kernel(op, rest, arch, device, op_latency);
      } catch (const InputError& e) {
        note = e.what();
      }
      for (const auto* s : held) {
        LooResult r{s->source, s->module, s->bound, op, s->latency, std::nullopt, note};
        if (f) {
          const KernelLatencyModel m(with_calibration(arch, op_latency, {{op, f->params}}), device);
          r.predicted = predict_sample(*s, m);
        }
        out.push_back(r);
      }
    }
  }
  return out;
}

}  // namespace ttsim::hls
