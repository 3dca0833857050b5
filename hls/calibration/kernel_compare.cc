#include "hls/calibration/kernel_compare.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ttsim::hls {
namespace {

double err_pct(double predicted, double reported) {
  return reported == 0 ? 0 : 100.0 * (predicted - reported) / reported;
}

std::string num(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }

template <class T>
Json jopt(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

std::string opt_text(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : std::string("-"); }

SampleComparison compare_sample(const KernelSample& s, const ComparisonModels& m) {
  SampleComparison c;
  c.sample = &s;
  c.uncalibrated = predict_sample(s, *m.uncalibrated);
  if (m.calibrated) c.calibrated = predict_sample(s, *m.calibrated);
  c.error_uncalibrated = err_pct(static_cast<double>(c.uncalibrated), static_cast<double>(s.latency));
  if (c.calibrated) c.error_calibrated = err_pct(static_cast<double>(*c.calibrated), static_cast<double>(s.latency));
  return c;
}

// Loop class `spec.name` over the samples' observations; samples = 0 when none holds it.
LoopComparison compare_loop(const std::vector<const KernelSample*>& samples, const LoopLatency& spec,
                            const LoopLatency& uncal, const LoopLatency* cal) {
  LoopComparison c;
  c.loop = spec.name;
  int n_depth = 0;
  double depth_sum = 0, ape_u = 0, ape_c = 0;
  for (const KernelSample* s : samples) {
    for (const LoopObservation& o : s->loops) {
      if (o.name != spec.name || o.trip < 1) continue;
      ++c.samples;
      if (o.ii) c.report_ii.insert(*o.ii);
      if (o.depth) {
        depth_sum += static_cast<double>(*o.depth);
        ++n_depth;
      }
      auto cycles = [&](const LoopLatency& l) { return static_cast<double>((o.trip - 1) * l.ii + l.depth); };
      ape_u += std::fabs(err_pct(cycles(uncal), static_cast<double>(o.latency)));
      if (cal) ape_c += std::fabs(err_pct(cycles(*cal), static_cast<double>(o.latency)));
    }
  }
  if (c.samples == 0) return c;
  c.model_ii = spec.ii;
  c.model_rec_mii = spec.rec_mii;
  c.model_res_mii = spec.res_mii;
  c.model_depth = spec.depth;
  c.ii_differs = std::any_of(c.report_ii.begin(), c.report_ii.end(), [&](std::int64_t v) { return v != spec.ii; });
  if (!c.report_ii.empty()) c.ii_error = err_pct(spec.ii, static_cast<double>(*c.report_ii.rbegin()));
  if (n_depth) c.report_depth = depth_sum / n_depth;
  if (c.report_depth) c.depth_error = err_pct(spec.depth, *c.report_depth);
  if (cal) c.calibrated_depth = cal->depth;
  c.mape_uncalibrated = ape_u / c.samples;
  if (cal) c.mape_calibrated = ape_c / c.samples;
  return c;
}

std::string sample_row(const SampleComparison& c, std::int64_t model_dsp) {
  const KernelSample& s = *c.sample;
  const std::string src = s.source.size() > 38 ? "…" + s.source.substr(s.source.size() - 37) : s.source;
  return fmt::format("  {:<38} {:>6} {:>13} {:>13} {:>14} {:>7.2f} {:>14} {:>7} {:>10}/{:<8} {:>6}/{:<7} {:>6}/{:<6}{}\n",
                     src, s.bound, s.latency_best.str(), s.latency_worst.str(), c.uncalibrated, c.error_uncalibrated,
                     num(c.calibrated), opt_text(c.error_calibrated), num(s.resources.bram_18k), "-",
                     num(s.resources.uram), "-", num(s.resources.dsp), model_dsp,
                     s.latency_source == "cosim" ? "  (report latency = co-simulation, csynth undef)" : "");
}

std::string loop_row(const LoopComparison& l) {
  std::string ii_text;
  for (auto v : l.report_ii) ii_text += (ii_text.empty() ? "" : "/") + std::to_string(v);
  return fmt::format("  {:<23} {:>7} {:>9} {:>10} {:>9} {:>12} {:>13} {:>12} {:>10} {:>9.2f} / {}{}\n", l.loop,
                     l.samples, l.model_ii, ii_text.empty() ? "-" : ii_text, opt_text(l.ii_error), l.model_depth,
                     opt_text(l.report_depth), opt_text(l.depth_error),
                     l.calibrated_depth ? std::to_string(*l.calibrated_depth) : "-", l.mape_uncalibrated,
                     opt_text(l.mape_calibrated), l.ii_differs ? "  REPORT II DIFFERS FROM THE DERIVED II" : "");
}

Json sample_json(const SampleComparison& c, std::int64_t model_dsp) {
  const KernelSample& s = *c.sample;
  return {{"report", s.source}, {"module", s.module}, {"bound", s.bound}, {"trips", s.trips()},
          {"report_latency", s.latency}, {"report_latency_source", s.latency_source},
          {"report_latency_best", jopt(s.latency_best.min)}, {"report_latency_worst", jopt(s.latency_worst.max)},
          {"simulated_uncalibrated", c.uncalibrated}, {"error_uncalibrated_pct", c.error_uncalibrated},
          {"simulated_calibrated", jopt(c.calibrated)}, {"error_calibrated_pct", jopt(c.error_calibrated)},
          {"resources_report", {{"BRAM_18K", jopt(s.resources.bram_18k)}, {"URAM", jopt(s.resources.uram)},
                                {"DSP", jopt(s.resources.dsp)}}},
          {"resources_model", {{"BRAM_18K", nullptr}, {"URAM", nullptr}, {"DSP", model_dsp}}}};
}

Json loop_json(const LoopComparison& l) {
  Json rep_ii = Json::array();
  for (auto v : l.report_ii) rep_ii.push_back(v);
  return {{"loop", l.loop},
          {"samples", l.samples},
          {"model_ii", l.model_ii},
          {"model_rec_mii", l.model_rec_mii},
          {"model_res_mii", l.model_res_mii},
          {"report_ii", rep_ii},
          {"ii_error_pct", jopt(l.ii_error)},
          {"ii_differs", l.ii_differs},
          {"model_depth", l.model_depth},
          {"report_depth", jopt(l.report_depth)},
          {"depth_error_pct", jopt(l.depth_error)},
          {"calibrated_depth", jopt(l.calibrated_depth)},
          {"loop_mape_uncalibrated_pct", l.mape_uncalibrated},
          {"loop_mape_calibrated_pct", jopt(l.mape_calibrated)}};
}

}  // namespace

KernelComparison compare_kernel(TaskOp op, const std::vector<const KernelSample*>& samples, const ArchSpec& arch,
                                const DeviceSpec& device, const ComparisonModels& models) {
  KernelComparison k;
  k.op = op;
  k.unit = unit_of(op);
  k.lanes = arch.unit(k.unit).lanes;
  k.model_dsp = kernel_dsp(op, k.lanes, device, arena_banks(arch), omitted_loops(arch));
  for (const KernelSample* s : samples) k.samples.push_back(compare_sample(*s, models));
  const std::vector<LoopLatency> spec = models.spec->loop_classes(k.unit, op);
  const std::vector<LoopLatency> uncal = models.uncalibrated->loop_classes(k.unit, op);
  const std::optional<std::vector<LoopLatency>> cal =
      models.calibrated ? std::optional<std::vector<LoopLatency>>(models.calibrated->loop_classes(k.unit, op))
                        : std::nullopt;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    LoopComparison l = compare_loop(samples, spec[i], uncal[i], cal ? &(*cal)[i] : nullptr);
    if (l.samples > 0) k.loops.push_back(std::move(l));
  }
  return k;
}

std::string format_kernel_comparison(const KernelComparison& k) {
  std::string s = fmt::format("\nkernel {} (unit {}, {} lanes)\n", to_string(k.op), to_string(k.unit), k.lanes);
  s += "  report                                  bound   report best  report worst   uncalibrated   "
       "err %     calibrated   err %   BRAM_18K rpt/model  URAM rpt/model  DSP rpt/model\n";
  for (const SampleComparison& c : k.samples) s += sample_row(c, k.model_dsp);
  // Per loop class: derived II and depth vs the reports'.
  s += "  loop class              samples  II model  II report  II err %  depth model  depth report  "
       "depth err %  cal depth  loop err % uncal / cal\n";
  for (const LoopComparison& l : k.loops) s += loop_row(l);
  return s;
}

Json kernel_comparison_json(const KernelComparison& k) {
  Json rows = Json::array(), loops = Json::array();
  for (const SampleComparison& c : k.samples) rows.push_back(sample_json(c, k.model_dsp));
  for (const LoopComparison& l : k.loops) loops.push_back(loop_json(l));
  return {{"kernel", to_string(k.op)}, {"unit", to_string(k.unit)}, {"samples", rows}, {"loops", loops}};
}

SampleMape sample_mape(const std::vector<KernelComparison>& kernels) {
  double ape_u = 0, ape_c = 0;
  bool calibrated = false;
  SampleMape m;
  for (const KernelComparison& k : kernels) {
    for (const SampleComparison& c : k.samples) {
      ape_u += std::fabs(c.error_uncalibrated);
      if (c.error_calibrated) ape_c += std::fabs(*c.error_calibrated);
      calibrated = calibrated || c.error_calibrated.has_value();
      ++m.samples;
    }
  }
  m.uncalibrated = m.samples ? ape_u / m.samples : 0;
  if (calibrated && m.samples) m.calibrated = ape_c / m.samples;
  return m;
}

std::string format_sample_mape(const SampleMape& m) {
  return "\n(model BRAM_18K/URAM per kernel: '-' = not modelled per kernel module; the simulator "
         "plans memories per buffer for the whole design)\n" +
         fmt::format("\nMAPE over {} samples: uncalibrated {:.2f} %, calibrated {}\n", m.samples, m.uncalibrated,
                     m.calibrated ? fmt::format("{:.2f} %", *m.calibrated) : "-");
}

namespace {

// Mean |error| (%) over the predictions made, and how many there are.
std::optional<double> loo_mape(const std::vector<LooResult>& loo, int& predictions) {
  double ape = 0;
  predictions = 0;
  for (const auto& r : loo) {
    if (!r.predicted) continue;
    ape += std::fabs(r.error_pct());
    ++predictions;
  }
  return predictions ? std::optional<double>(ape / predictions) : std::nullopt;
}

}  // namespace

std::string format_leave_one_out(const std::vector<LooResult>& loo) {
  std::string s = "\nleave-one-out (fit on the other reports of the kernel, predict the left-out one):\n";
  for (const auto& r : loo) {
    s += fmt::format("  {:<15} {:<40} {:>6} reported {:>10} predicted {:>10} {}\n", to_string(r.op), r.source,
                     r.bound, r.reported, num(r.predicted),
                     r.predicted ? fmt::format("{:+.2f} %", r.error_pct()) : "(" + r.note + ")");
  }
  if (loo.empty()) s += "  none: every kernel has fewer than 3 reports\n";
  int n = 0;
  const std::optional<double> mape = loo_mape(loo, n);
  return s + fmt::format("leave-one-out MAPE over {} predictions: {}\n", n,
                         mape ? fmt::format("{:.2f} %", *mape) : "-");
}

Json leave_one_out_json(const std::vector<LooResult>& loo) {
  Json predictions = Json::array();
  for (const auto& r : loo) {
    predictions.push_back({{"kernel", to_string(r.op)}, {"report", r.source}, {"bound", r.bound},
                           {"reported", r.reported}, {"predicted", jopt(r.predicted)},
                           {"error_pct", r.predicted ? Json(r.error_pct()) : Json(nullptr)}, {"note", r.note}});
  }
  int n = 0;
  return {{"predictions", predictions}, {"mape_pct", jopt(loo_mape(loo, n))}};
}

}  // namespace ttsim::hls
