#include "dse/run/result_stream.h"

#include <algorithm>
#include <fstream>
#include <cmath>
#include <iterator>
#include <string_view>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "core/errors.h"
#include "dse/evaluate/feasibility.h"
#include "dse/evaluate/resolve.h"
#include "hw/kernel_latency.h"

namespace ttsim::dse {

namespace {

using Buffer = fmt::memory_buffer;

void put(Buffer& b, std::string_view text) { b.append(text.data(), text.data() + text.size()); }

void put_int(Buffer& b, std::uint64_t v) { put(b, fmt::format_int(v).c_str()); }

// ,"clock":{"achievable_basis":..,"achievable_mhz":..,"mhz":..,"operator_latencies":{op: cycles}}:
// the point's clock (NaN: not evaluated, "clock":null), its achievable clock by the fit rule
// (hw/resource_fit.h achievable_clock; null when the device states none) with what sets it
// (the device file's pointer, and why for the multi-SLR figure) and the operator latencies at
// the point's clock the kernel loops were priced with (a calibration's where it has them).
void append_clock_json(std::string& out, const DeviceSpec& device, const KernelCalibration* calibration, double mhz,
                       const ClockEstimate& achievable, JsonNumbers numbers) {
  out += ",\"clock\":";
  if (std::isnan(mhz) || mhz > device.max_clock_mhz) {
    out += "null";
    return;
  }
  out += "{\"achievable_basis\":";
  if (achievable.mhz > 0) {
    const std::string basis = achievable.basis();
    append_json_string(out, std::string(achievable.device_pointer) + (basis.empty() ? "" : ": " + basis));
  } else {
    out += "null";
  }
  out += ",\"achievable_mhz\":";
  if (achievable.mhz > 0) {
    append_json_number(out, achievable.mhz, numbers);
  } else {
    out += "null";
  }
  out += ",\"mhz\":";
  append_json_number(out, mhz, numbers);
  out += ",\"operator_latencies\":{";
  bool first = true;
  for (const auto& [op, cycles] : priced_operator_latencies(device, mhz, calibration)) {  // ascending names
    if (!first) out += ',';
    first = false;
    append_json_string(out, op);
    out += ':';
    out += fmt::format_int(cycles).c_str();
  }
  out += "}}";
}

}  // namespace

void append_point_json(std::string& out, const SweepEvaluator& eval, const ResultRow& r, JsonNumbers numbers) {
  const auto& axes = eval.sweep().space.axes();
  const Evaluation& e = r.rec.best();
  const auto metric = [&](Metric m) { return e.metrics.v[static_cast<int>(m)]; };
  out += "{\"accuracy_source\":";
  if (e.accuracy_source.empty()) out += "null"; else append_json_string(out, e.accuracy_source);
  if (r.rec.has_systemc) {
    out += ",\"analytic_metrics\":";
    append_metrics_json(out, r.rec.analytic.metrics, numbers);
  }
  append_clock_json(out, eval.priced_device(), eval.kernel_calibration(), metric(Metric::kClockMhz),
                    achievable_clock(point_use(e, eval.device()), eval.device(), eval.sweep().constraints.resource_headroom_pct),
                    numbers);
  out += ",\"energy_joules_per_epoch\":";
  append_json_number(out, metric(Metric::kEpochEnergyJoules), numbers);
  out += r.verdict.feasible ? ",\"feasible\":true,\"fidelity\":\"" : ",\"feasible\":false,\"fidelity\":\"";
  out += to_string(e.fidelity);
  out += "\",\"id\":";
  out += fmt::format_int(r.id).c_str();
  out += ",\"metrics\":";
  append_metrics_json(out, e.metrics, numbers);
  out += ",\"name\":";
  append_json_string(out, point_name(eval.sweep(), r.id, r.values));
  out += ",\"power_watts\":{\"dynamic\":";
  append_json_number(out, metric(Metric::kPowerDynamicWatts), numbers);
  out += ",\"static\":";
  append_json_number(out, metric(Metric::kPowerStaticWatts), numbers);
  out += ",\"total\":";
  append_json_number(out, metric(Metric::kPowerTotalWatts), numbers);
  out += "}";
  if (!r.verdict.feasible) {
    out += ",\"reason\":";
    append_json_string(out, r.verdict.reason);
  }
  if (!r.ref_label.empty()) {
    out += ",\"reference\":";
    append_json_string(out, r.ref_label);
  }
  out += ",\"tt_rank\":";
  if (e.tt_rank) {
    out += fmt::format_int(e.tt_rank).c_str();
  } else {
    out += "null";
  }
  out += ",\"values\":{";
  std::vector<std::size_t> order(axes.size());
  for (std::size_t a = 0; a < order.size(); ++a) order[a] = a;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return axes[x].name < axes[y].name; });
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k) out += ",";
    append_json_string(out, axes[order[k]].name);
    out += ":";
    out += r.values.at(order[k]).dump();
  }
  out += "}}";
}

std::string jsonl_row(const SweepEvaluator& eval, const ResultRow& r) {
  std::string line;
  line.reserve(1536);
  append_point_json(line, eval, r, JsonNumbers::kShortest);
  line += '\n';
  return line;
}

namespace {

std::string csv_row(const ResultRow& r) {
  Buffer b;
  put_int(b, r.id);
  put(b, ",");
  put(b, csv_cell(r.ref_label));
  for (const auto& v : r.values) {
    put(b, ",");
    if (!v.is_null()) put(b, csv_cell(value_text(v)));
  }
  const Evaluation& e = r.rec.best();
  put(b, ",");
  put(b, to_string(e.fidelity));
  put(b, r.verdict.feasible ? ",1" : ",0");
  for (int m = 0; m < kMetricCount; ++m) {
    put(b, ",");
    if (!std::isnan(e.metrics.v[m])) fmt::format_to(std::back_inserter(b), FMT_COMPILE("{}"), e.metrics.v[m]);
  }
  put(b, ",");
  put(b, e.accuracy_source);
  put(b, ",");
  put(b, csv_cell(r.verdict.reason));
  put(b, "\n");
  return fmt::to_string(b);
}

// The clock (MHz) a point runs at: its arch document's clock_mhz, else the resolved arch's
// (the default the loader fills in); nullopt when the arch does not load.
std::optional<double> clock_of(const SweepEvaluator& eval, const ResultRow& r) {
  const Json* arch = &r.point.arch();
  Json resolved;
  if (!arch->contains("clock_mhz") || !arch->at("clock_mhz").is_number()) {
    try {
      resolved = eval.evaluators().analytic->resolved_configs(r.point);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (!resolved.contains("arch")) return std::nullopt;
    arch = &resolved.at("arch");
    if (!arch->contains("clock_mhz") || !arch->at("clock_mhz").is_number()) return std::nullopt;
  }
  return arch->at("clock_mhz").get<double>();
}

}  // namespace

std::string csv_header(const SweepSpec& sweep) {
  std::string h = "id,reference";
  for (const auto& a : sweep.space.axes()) h += "," + csv_cell(a.name);
  h += ",fidelity,feasible";
  for (int m = 0; m < kMetricCount; ++m) h += std::string(",") + metric_info(static_cast<Metric>(m)).name;
  return h + ",accuracy_source,reason\n";
}

RowText render_row(const SweepEvaluator& eval, const ResultRow& row) {
  return RowText{csv_row(row), jsonl_row(eval, row), clock_of(eval, row)};
}

ResultStream::ResultStream(const std::string& dir, const SweepEvaluator& eval)
    : csv_(std::make_unique<AtomicFileWriter>(dir + "/results.csv")),
      jsonl_(std::make_unique<AtomicFileWriter>(dir + "/results.jsonl")) {
  csv_->write(csv_header(eval.sweep()));
}

void ResultStream::append(PointId id, const RowText* row) {
  if (!accepting()) return;
  if (!row || (last_ && id <= *last_)) return discard();
  last_ = id;
  csv_->write(row->csv);
  jsonl_->write(row->jsonl);
  if (row->clock_mhz) clocks_.insert(*row->clock_mhz);
  ++rows_;
}

void ResultStream::discard() {
  csv_.reset();  // removes the temporaries
  jsonl_.reset();
}

bool ResultStream::covers(const RunState& state) const { return accepting() && rows_ == state.points.size(); }

void ResultStream::commit() {
  if (!accepting()) throw std::logic_error("ResultStream::commit: the stream was voided");
  csv_->commit();
  jsonl_->commit();
}

namespace {

// The next CSV record of `in` with its newline into `out` (a newline inside a quoted cell
// belongs to the record: lines are joined while the record holds an odd number of quotes,
// an escaped quote ("") counting twice); false at the end.
bool next_csv_record(std::istream& in, std::string& out) {
  out.clear();
  std::string line;
  std::size_t quotes = 0;
  while (std::getline(in, line)) {
    quotes += static_cast<std::size_t>(std::count(line.begin(), line.end(), '"'));
    out += line;
    if (in.eof()) break;  // a last record without its newline
    out += '\n';
    if (quotes % 2 == 0) return true;
  }
  return !out.empty();
}

}  // namespace

void ResultStream::commit(const RunState& state, const std::function<RowText(PointId)>& render_again) {
  if (!covers(state)) throw std::logic_error("ResultStream::commit: the stream does not cover the run's points");
  bool any = false;
  for (const auto& [id, s] : state.points) {
    (void)id;
    any = any || s.has_systemc();
  }
  if (!any) return commit();
  // The rows appended, in ascending id as the state's points: read back, each kept or
  // replaced, into new temporaries of the same files.
  std::ifstream csv_in = csv_->take_back(), jsonl_in = jsonl_->take_back();
  const std::string csv_path = csv_->path(), jsonl_path = jsonl_->path();
  csv_ = std::make_unique<AtomicFileWriter>(csv_path);
  jsonl_ = std::make_unique<AtomicFileWriter>(jsonl_path);
  std::string csv_line, jsonl_line;
  if (!next_csv_record(csv_in, csv_line)) throw InputError(csv_path + ": the streamed rows cannot be read back");
  csv_->write(csv_line);  // the header
  for (const auto& [id, s] : state.points) {
    // Each record read back must be the point's (its id first in the CSV row).
    const std::string id_cell = std::to_string(id) + ",";
    if (!next_csv_record(csv_in, csv_line) || !std::getline(jsonl_in, jsonl_line) ||
        csv_line.compare(0, id_cell.size(), id_cell) != 0) {
      throw InputError(csv_path + ": the streamed rows cannot be read back (point " + std::to_string(id) + ")");
    }
    if (!s.has_systemc()) {
      csv_->write(csv_line);
      jsonl_->write(jsonl_line);
      jsonl_->write("\n");
      continue;
    }
    const RowText row = render_again(id);
    csv_->write(row.csv);
    jsonl_->write(row.jsonl);
    if (row.clock_mhz) clocks_.insert(*row.clock_mhz);
  }
  commit();
}

}  // namespace ttsim::dse
