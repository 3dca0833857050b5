#include "sim/design_report.h"

#include <fmt/format.h>

#include "core/number_text.h"
#include "hw/kernel_latency.h"
#include "machine/machine_report.h"
#include "sim/step_report.h"

namespace ttsim {
namespace {

std::string mac_ideal_line(const StepResult& r, const ArchSpec& arch) {
  const UnitSpec& c = arch.units[static_cast<int>(UnitKind::kContraction)];
  const std::int64_t lanes = static_cast<std::int64_t>(c.count) * c.lanes;
  const std::int64_t macs = graph_macs(r.graph()), ideal = mac_ideal_cycles(r.graph(), lanes);
  if (ideal <= 0) return {};
  return fmt::format("MAC ideal {} cycles ({} MACs on {} contraction lanes); the step is {:.2f}× it\n", grouped(ideal),
                     grouped(macs), lanes, static_cast<double>(r.run.schedule.makespan) / static_cast<double>(ideal));
}

// Step cycles and ms, the three stages, the analytic cycles, and the step's MAC ideal: its
// MACs over the contraction's lanes (every engine's), the cycles no schedule of this step on
// those lanes can beat.
std::string step_lines(const StepResult& r, const ArchSpec& arch) {
  const double mhz = arch.clock_mhz;
  auto ms = [&](std::int64_t c) { return fmt::format("{:.3f} ms", c / (mhz * 1e3)); };
  const auto st = stage_cycles(r.graph(), r.run.schedule);
  const std::int64_t step = r.run.schedule.makespan;
  return fmt::format("step cycles {:>14}  {}\n", grouped(step), ms(step)) +
         fmt::format("  forward   {:>14}  {}\n", grouped(st.forward), ms(st.forward)) +
         fmt::format("  backward  {:>14}  {}{}\n", grouped(st.backward), ms(st.backward),
                     st.recompute > 0 ? fmt::format(" (of it {} recomputing encoders)", grouped(st.recompute)) : "") +
         fmt::format("  update    {:>14}  {}\n", grouped(st.update), ms(st.update)) +
         fmt::format("analytic (no port contention) {} cycles; {} tasks, {} events\n", grouped(r.analytic_cycles),
                     r.graph().tasks.size(), r.run.schedule.events) +
         mac_ideal_line(r, arch);
}

std::string epoch_line(const DesignEvaluation& e, const ArchSpec& arch, const std::string& split) {
  if (!e.epoch) return "epoch: not computed (pass --dataset-lengths)\n";
  const EpochResult& ep = *e.epoch;
  return fmt::format("epoch ({} split, {} samples, {} length): {} cycles = {:.3f} s\n", split, grouped(ep.samples),
                     to_string(arch.sequence_length), grouped(ep.cycles), ep.seconds) +
         (ep.truncated > 0
              ? fmt::format("  note: {} of the samples are longer than the model's {} tokens and are priced at {} "
                            "tokens, truncated as training truncates them\n",
                            grouped(ep.truncated), ep.seq_len, ep.seq_len)
              : std::string());
}

std::string power_line(const DesignEvaluation& e, const DeviceSpec& device) {
  if (!e.power) return "power: not computed (" + device.source_file + " has no power coefficients)\n";
  const PowerBreakdown& p = *e.power;
  return fmt::format("power: static {:.2f} W + dynamic {:.2f} W = {:.2f} W; energy {:.4f} J/step{}\n",
                     p.static_watts, p.dynamic_watts(), p.total_watts(), *e.step_joules,
                     e.epoch_joules ? fmt::format(", {:.1f} J/epoch", *e.epoch_joules) : std::string());
}

// The on-chip peak by buffer class, what was built, and the LUT warning.
std::string onchip_lines(const DesignEvaluation& e, double clock_mhz, const DeviceSpec& device) {
  const auto& pk = e.step.occupancy.peak_bytes;
  std::string s = fmt::format("on-chip peak: params {}, grads {}, activations {}, temporaries {}, total {}\n",
                              mib(pk[0]), mib(pk[1]), mib(pk[2]), mib(pk[3]), mib(e.step.occupancy.peak_total_bytes));
  s += machine::built_line(e.machine(), e.luts, e.ff_terms.total(), clock_mhz, device);
  return s;
}

Json epoch_json(const EpochResult& epoch, const std::string& split) {
  Json by = Json::array();
  for (const auto& l : epoch.by_length) {
    by.push_back({{"length", l.length}, {"samples", l.samples}, {"step_cycles", l.step_cycles}});
  }
  return {{"split", split},
          {"samples", epoch.samples},
          {"seq_len", epoch.seq_len},
          {"samples_truncated", epoch.truncated},
          {"by_length", by}};
}

Json power_json(const PowerBreakdown& p) {
  return {{"static", p.static_watts},
          {"dynamic", p.dynamic_watts()},
          {"total", p.total_watts()},
          {"by_component",
           {{"dsp", p.dsp_watts}, {"bram", p.bram_watts}, {"uram", p.uram_watts}, {"logic", p.logic_watts},
            {"clock", p.clock_watts}}}};
}

Json optional_json(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

std::string design_summary(const DesignEvaluation& e, const ModelSpec& model, const ArchSpec& arch,
                           const DeviceSpec& device, const std::string& split, const std::string& clock_note) {
  return fmt::format("model {} ({} encoders, {} tokens/step) on arch {} ({:.4g} MHz){}, device {}{}\n", model.name,
                     model.encoders, e.step.tokens, arch.name, arch.clock_mhz, clock_note, device.name,
                     recompute_note(arch)) +
         step_lines(e.step, arch) + epoch_line(e, arch, split) + power_line(e, device) +
         onchip_lines(e, arch.clock_mhz, device);
}

Json design_json(const DesignEvaluation& e, const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                 const std::string& split) {
  const machine::Machine& mach = e.machine();
  Json j = step_json(e.step, arch);
  j["model"] = model.name;
  j["arch"] = arch.to_json();
  j["device"] = device.name;
  j["bram36_blocks"] = mach.bram36();
  j["uram_blocks"] = mach.uram288();
  j["dsp"] = mach.dsp();
  j["fits"] = e.over_device.empty();
  j["lut_estimate"] = e.luts;
  j["lut_terms"] = e.lut_terms.to_json();
  j["ff_estimate"] = e.ff_terms.total();
  j["ff_terms"] = e.ff_terms.to_json();
  j["resource_headroom_pct"] = kDefaultResourceHeadroomPct;
  j["over_device"] = e.over_device;
  const double card = machine::card_watts(mach, e.luts, arch.clock_mhz, device);
  j["card_watts"] = card > 0 ? Json(card) : Json(nullptr);
  const ClockEstimate achievable =
      achievable_clock(machine::machine_use(mach, e.luts, e.ff_terms.total(), arch.clock_mhz, device), device,
                       kDefaultResourceHeadroomPct);
  j["clock"] = {{"mhz", arch.clock_mhz},
                {"achievable_mhz", achievable.mhz > 0 ? Json(achievable.mhz) : Json(nullptr)},
                {"achievable_source", achievable.mhz > 0 ? Json(achievable.device_pointer) : Json(nullptr)},
                {"achievable_basis", achievable.slr_resource ? Json(achievable.basis()) : Json(nullptr)},
                {"max_mhz", device.max_clock_mhz},
                {"operator_latencies", priced_operator_latencies(device, arch.clock_mhz, arch.calibration.get())}};
  j["machine"] = machine::machine_json(mach, e.step.graph());
  if (e.epoch) j["epoch"] = epoch_json(*e.epoch, split);
  j["epoch_cycles"] = e.epoch ? Json(e.epoch->cycles) : Json(nullptr);
  j["epoch_seconds"] = e.epoch ? Json(e.epoch->seconds) : Json(nullptr);
  j["power_watts"] = e.power ? power_json(*e.power) : Json(nullptr);
  j["energy_joules_per_step"] = optional_json(e.step_joules);
  j["energy_joules_per_epoch"] = optional_json(e.epoch_joules);
  return j;
}

}  // namespace ttsim
