#include "dse/evaluate/sim_evaluator.h"

#include "core/doc_memo.h"
#include "dse/evaluate/point_power.h"
#include "machine/hls_dims.h"
#include "machine/machine.h"
#include "models/model_reparse.h"
#include "sim/design_eval.h"
#include "models/training_graph.h"
#include "sim/analytic.h"
#include "hw/arch_spec.h"
#include "sim/epoch.h"
#include "hw/kernel_latency.h"
#include "sim/occupancy.h"
#include "sim/schedule_activity.h"
#include "sim/step_power.h"
#include "sim/sched_graph.h"
#include "sim/step_report.h"
#include "sim/step_sim.h"

namespace ttsim::dse {

SimContext make_sim_context(const DeviceSpec& device, const std::string& lengths_file,
                            const std::string& split) {
  SimContext c;
  c.device = device;
  if (!lengths_file.empty()) {
    c.train = dataset::load_dataset_lengths(lengths_file).epoch_split(split);
    c.has_lengths = true;
  }
  return c;
}

void calibrate_sim_context(const Calibration& c, const ArchSpec& base_arch,
                           const std::vector<double>& clocks_mhz, SimContext& ctx) {
  ArchSpec a = base_arch;
  for (double mhz : clocks_mhz) {
    a.clock_mhz = mhz;
    check_calibration_matches(c, a, ctx.device);
  }
  a = base_arch;
  if (!clocks_mhz.empty()) a.clock_mhz = clocks_mhz.front();
  apply_calibration(c, a, ctx.device);
  ctx.calibration = std::make_shared<const Calibration>(c);
  ctx.kernel_calibration = a.calibration;
}

namespace {

struct Resolved {
  std::shared_ptr<const ModelSpec> model;
  ArchSpec arch;
};

/// The point's model and arch as the loaders and `ctx`'s calibration make them. With
/// `check_buildable`, also refuses (ConfigError / InputError) what evaluate_design refuses
/// itself before it builds anything, for configs asked for without an evaluation: a design
/// the emitted top cannot carry out, a model beyond the kernel tree's limits.
Resolved resolve(const SimContext& ctx, const PointConfig& p, bool check_buildable) {
  Resolved r;
  // Neighbouring points share documents (a sweep's last axes vary fastest: lanes, flow,
  // clock, then per-layer ranks): each distinct arch document is parsed once while it is
  // among this thread's recent ones; a model document that differs from the previous one
  // only in per-layer override ranks takes the previous parse with those ranks changed.
  thread_local ModelReparser models;
  thread_local DocMemo<ArchSpec, 16> archs;  // e.g. five lane counts × two flows, cycling
  // The point's model and arch are the base files as the sweep's axes set them: every error
  // about them (the parse, the kernel tree's refusals) says so.
  static const std::string kAsSet = " as this point's axes set it";
  r.model = models.parse(p.model_doc, p.model_file.empty() ? p.model_file : p.model_file + kAsSet);
  r.arch = *archs.get(p.arch_doc, p.arch_file.empty() ? p.arch_file : p.arch_file + kAsSet, parse_arch_spec);
  if (check_buildable) {
    machine::check_buildable(r.arch);
    machine::hls_design(*r.model, r.arch, r.arch.source_file.empty() ? r.arch.name : r.arch.source_file);
  }
  if (ctx.calibration) {
    // As `simulate --calibration` (apply_calibration): refuse another part or clock, then
    // apply the fit and run at the achievable clock when the reports missed timing.
    check_calibration_matches(*ctx.calibration, r.arch, ctx.device);
    r.arch.calibration = ctx.kernel_calibration;
    r.arch.clock_mhz = calibrated_clock_mhz(*ctx.calibration, r.arch.clock_mhz);
  }
  return r;
}

/// Hardware metrics of the emitted build: DSPs of its instances, BRAM36 / URAM288 of its
/// memories, on-chip bytes of its arrays.
void machine_metrics(const machine::Machine& m, Evaluation& e) {
  e.metrics[Metric::kOnchipBytes] = static_cast<double>(m.onchip_bytes());
  e.metrics[Metric::kBram36] = static_cast<double>(m.bram36());
  e.metrics[Metric::kUram288] = static_cast<double>(m.uram288());
  e.metrics[Metric::kDsp] = static_cast<double>(m.dsp());
}

void step_metrics(const TaskGraph& graph, const Schedule& s, Evaluation& e) {
  const StageCycles st = stage_cycles(graph, s);
  e.metrics[Metric::kStepCycles] = static_cast<double>(s.makespan);
  e.metrics[Metric::kForwardCycles] = static_cast<double>(st.forward);
  e.metrics[Metric::kBackwardCycles] = static_cast<double>(st.backward);
  e.metrics[Metric::kUpdateCycles] = static_cast<double>(st.update);
}

Json breakdown_json(const TaskGraph& graph, const Schedule& s) {
  const StageCycles st = stage_cycles(graph, s);
  Json layers = Json::array();
  for (const auto& l : layer_breakdown(graph, s)) {
    layers.push_back({{"name", l.layer}, {"busy_cycles", l.busy_cycles},
                      {"start", l.start}, {"end", l.end}, {"macs", l.macs}});
  }
  return Json{{"stages", {{"forward", st.forward}, {"backward", st.backward}, {"update", st.update}}},
              {"step_cycles", s.makespan},
              {"layers", layers}};
}

Json configs_json(const SimContext& ctx, const Resolved& r) {
  return Json{{"model", r.model->to_json()}, {"arch", r.arch.to_json()},
              {"device", ctx.device.name}};
}

bool common_provides(const SimContext& ctx, Metric m) {
  switch (m) {
    case Metric::kEpochSeconds:
      return ctx.has_lengths;
    case Metric::kEpochEnergyJoules:
      return ctx.has_lengths && has_power_coefficients(ctx.device);
    case Metric::kPowerStaticWatts:
    case Metric::kPowerDynamicWatts:
    case Metric::kPowerTotalWatts:
      return has_power_coefficients(ctx.device);
    case Metric::kAccuracy:
    case Metric::kSlotF1:
      return false;  // from the rank-accuracy table (dse/evaluate/sweep_evaluator.h)
    default:
      return true;
  }
}

}  // namespace

bool SimEvaluator::provides(Metric m) const { return common_provides(ctx_, m); }

Json SimEvaluator::resolved_configs(const PointConfig& p) const { return configs_json(ctx_, resolve(ctx_, p, true)); }

Evaluation SimEvaluator::evaluate(const PointConfig& p, bool detailed) const {
  Evaluation e;
  e.fidelity = fidelity_;
  // evaluate_design checks that the emitted top can carry the design out and the kernel
  // tree's limits before it builds anything (a point it refuses is reported not evaluated,
  // with the error naming the arch field or the limit).
  const Resolved r = resolve(ctx_, p, false);
  const auto ev = evaluate_design(*r.model, r.arch, ctx_.device, ctx_.has_lengths ? &ctx_.train : nullptr, fidelity_);
  const StepResult& s = ev->step;
  step_metrics(s.graph(), s.run.schedule, e);
  machine_metrics(ev->machine(), e);
  e.metrics[Metric::kClockMhz] = r.arch.clock_mhz;
  e.metrics[Metric::kFf] = ev->ff_terms.total();
  e.metrics[Metric::kCompression] =
      static_cast<double>(r.model->dense_params()) / static_cast<double>(r.model->compressed_params());
  if (ev->epoch) {
    e.metrics[Metric::kEpochSeconds] = ev->epoch->seconds;
    if (r.arch.sequence_length == SequenceLength::kEffective) {
      // Mean step cycles over the epoch for effective-length designs.
      e.metrics[Metric::kStepCycles] =
          static_cast<double>(ev->epoch->cycles) / static_cast<double>(ev->epoch->samples);
    }
  }
  set_power_metrics(ctx_.device, ev->activity, ev->luts, e.metrics);
  if (detailed) {
    e.breakdown = breakdown_json(s.graph(), s.run.schedule);
    e.resolved = configs_json(ctx_, r);
    e.machine = std::make_shared<const machine::Machine>(ev->machine());
  }
  return e;
}

}  // namespace ttsim::dse
