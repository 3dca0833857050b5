#include "dse/space/metrics.h"

namespace ttsim::dse {

const char* const kStepCyclesMeaning =
    "the padded training step (the one `simulate` prints), except for points at the samples' own lengths "
    "(sequence_length effective) evaluated with a dataset, where it is the mean step over the epoch's samples; "
    "forward, backward and update cycles and the breakdown are the padded step's";

std::string step_cycles_meaning(bool effective_lengths, bool has_epoch) {
  if (effective_lengths && has_epoch) {
    return "the mean training step over the epoch's samples, each at its own length (sequence_length effective); "
           "forward, backward and update cycles and the breakdown are the padded step's";
  }
  return "the padded training step (the one `simulate` prints)";
}

namespace {
const MetricInfo kInfo[kMetricCount] = {
    {"epoch_seconds", "s", false},      {"step_cycles", "cycles", false},
    {"forward_cycles", "cycles", false}, {"backward_cycles", "cycles", false},
    {"update_cycles", "cycles", false}, {"epoch_energy_joules", "J", false},
    {"power_static_watts", "W", false}, {"power_dynamic_watts", "W", false},
    {"power_total_watts", "W", false},
    {"onchip_bytes", "bytes", false},   {"bram36", "blocks", false},
    {"uram288", "blocks", false},       {"dsp", "slices", false},
    {"lut", "LUTs", false},             {"compression", "x", true},
    {"accuracy", "fraction", true},     {"slot_f1", "fraction", true},
    {"kernel_clock_mhz", "MHz", false}, {"ff", "FFs", false},
};
}  // namespace

const MetricInfo& metric_info(Metric m) { return kInfo[static_cast<int>(m)]; }

std::optional<Metric> parse_metric(const std::string& name) {
  for (int i = 0; i < kMetricCount; ++i) {
    if (name == kInfo[i].name) return static_cast<Metric>(i);
  }
  return std::nullopt;
}

std::string metric_names() {
  std::string out;
  for (int i = 0; i < kMetricCount; ++i) {
    if (i) out += ", ";
    out += kInfo[i].name;
  }
  return out;
}

}  // namespace ttsim::dse
