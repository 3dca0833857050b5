// The evaluation log of a run folder and the per-point summaries built from it
// (dse/run/run_state.h).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/fault_point.h"
#include "dse/run/run_state.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

RunState::RunState() = default;
RunState::~RunState() = default;
RunState::RunState(RunState&&) noexcept = default;
RunState& RunState::operator=(RunState&&) noexcept = default;

namespace {

// Appends the canonical text of one log line, {"id": id, "analytic" or "systemc": e} as a
// JSON dump writes it, and a newline, written directly (keys in the dump's order).
void append_log_line(std::string& out, PointId id, const Evaluation& e) {
  if (e.fidelity == Fidelity::kSystemC) {
    out += "{\"id\":";
    out += fmt::format_int(id).c_str();
    out += ",\"systemc\":";
    append_evaluation_json(out, e);
    out += "}\n";
  } else {
    out += "{\"analytic\":";
    append_evaluation_json(out, e);
    out += ",\"id\":";
    out += fmt::format_int(id).c_str();
    out += "}\n";
  }
}

// Writes a format-1 state's inline points to `path` as a compacted log.
void write_legacy_log(const Json& points, const std::string& path) {
  AtomicFileWriter out(path);
  // Each {"id", "analytic"[, "systemc"]}, checked when the log is read.
  for (const Json& p : points) out.write(p.dump() + "\n");
  out.commit();
}

}  // namespace

JsonLinesReader& RunState::reader() const {
  if (!unflushed_.empty()) throw std::logic_error("evaluation log read before flush()");
  if (!reader_) reader_ = std::make_unique<JsonLinesReader>(log_);
  return *reader_;
}

void RunState::start_log(const std::string& dir) {
  log_ = dir + "/" + kEvaluationLog;
  require_replaceable_output(log_);
  std::ofstream out(log_, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(log_ + ": cannot write the evaluation log");
  points.clear();
  unflushed_.clear();
  size_ = 0;
  reader_.reset();
  in_order_ = true;
  lines_ = 0;
  canonical_from_ = 0;
}

void RunState::load_log(const std::string& dir, const SweepEvaluator& eval, bool repair) {
  log_ = dir + "/" + kEvaluationLog;
  in_order_ = false;
  points.clear();
  unflushed_.clear();
  reader_.reset();
  if (!legacy_points.is_null()) {
    if (!repair) {
      throw InputError(dir + "/state.json: written by an older ttsim (its points inline, no " +
                       std::string(kEvaluationLog) + "); run the explore command of this folder once more "
                       "with --resume to convert it");
    }
    write_legacy_log(legacy_points, log_);
    legacy_points = Json();
  }
  if (!fs::exists(log_)) {
    // A state.json always has its log beside it (an empty one before the first batch).
    throw InputError(log_ + ": missing (the evaluations of the run in " + dir + "); start a new run in "
                     "another --out folder");
  }
  const std::uint64_t point_count = eval.sweep().space.size();
  JsonLinesReader in(log_);
  Json doc;
  while (in.next(doc)) {
    const JsonView line(doc, in.where());
    line.allow_keys({"id", "analytic", "systemc"});
    const JsonView idv = line.at("id");
    const auto id = static_cast<PointId>(idv.as_int(0, std::numeric_limits<std::int64_t>::max()));
    if (id >= point_count) {
      throw ConfigError(in.where(), "/id",
                        "a point id in 0.." + std::to_string(point_count - 1) + " (the sweep's design space has " +
                            std::to_string(point_count) + " points)",
                        std::to_string(id));
    }
    const auto a = line.find("analytic"), sc = line.find("systemc");
    if (!a && !sc) line.fail("an \"analytic\" or \"systemc\" evaluation", "neither");
    if (a) {
      PointSummary f = PointSummary::of(eval, evaluation_from_json(*a, Fidelity::kAnalytic));
      PointSummary& s = points[id];
      s.analytic_at = in.offset();
      s.analytic_feasible = f.feasible;
      if (!s.has_systemc()) s.set_best(std::move(f));
    }
    if (sc) {
      const Evaluation e = evaluation_from_json(*sc, Fidelity::kSystemC);
      auto it = points.find(id);
      if (it == points.end()) sc->fail("a SystemC evaluation of a point whose analytic one comes before it");
      it->second.systemc_at = in.offset();
      it->second.set_best(PointSummary::of(eval, e));
    }
  }
  size_ = in.complete_bytes();
  canonical_from_ = size_;  // the lines read may be another writer's text
  if (in.cut_short() && repair) fs::resize_file(log_, static_cast<std::uintmax_t>(size_));
  for (std::size_t k = 0; k < systemc_pending.size(); ++k) {
    if (!points.count(systemc_pending[k])) {
      throw ConfigError(dir + "/state.json", "/systemc_pending/" + std::to_string(k),
                        "the id of a point in " + log_, std::to_string(systemc_pending[k]));
    }
  }
}

void RunState::add(PointId id, const Evaluation& e, PointSummary figures) {
  const bool systemc = e.fidelity == Fidelity::kSystemC;
  const std::int64_t at = size_ + static_cast<std::int64_t>(unflushed_.size());
  if (systemc || (!points.empty() && (points.end() - 1)->first >= id)) in_order_ = false;
  ++lines_;
  append_log_line(unflushed_, id, e);
  PointSummary& s = points[id];
  if (systemc) {
    s.systemc_at = at;
    s.set_best(std::move(figures));
  } else {
    s.analytic_at = at;
    s.analytic_feasible = figures.feasible;
    if (!s.has_systemc()) s.set_best(std::move(figures));
  }
}

void RunState::flush() {
  if (unflushed_.empty()) return;
  {
    std::ofstream out(log_, std::ios::binary | std::ios::app);
    out.write(unflushed_.data(), static_cast<std::streamsize>(unflushed_.size()));
    out.flush();
    if (!out) {
      const int err = errno;
      throw_file_error(err, log_ + ": cannot append to the evaluation log (" + std::strerror(err) + ")");
    }
  }
  size_ += static_cast<std::int64_t>(unflushed_.size());
  unflushed_.clear();
  fault_point();  // a killed run leaves the log whole or with its last line cut short
}

PointRecord RunState::record(PointId id) const {
  const PointSummary& s = points.at(id);
  PointRecord r;
  const Json a = reader().at(s.analytic_at);
  r.analytic = evaluation_from_json(JsonView(a, log_ + ":@" + std::to_string(s.analytic_at)).at("analytic"), Fidelity::kAnalytic);
  if (s.has_systemc()) {
    const Json sc = reader().at(s.systemc_at);
    r.has_systemc = true;
    r.systemc = evaluation_from_json(JsonView(sc, log_ + ":@" + std::to_string(s.systemc_at)).at("systemc"), Fidelity::kSystemC);
  }
  return r;
}

void RunState::for_each(const std::function<void(PointId, const PointRecord&)>& fn) const {
  for (const auto& [id, s] : points) {
    (void)s;
    fn(id, record(id));
  }
}

void RunState::compact() {
  flush();
  // Lines written by append_log_line in ascending id, one per point: compacting would rewrite
  // them byte for byte (each is the dump of {"analytic", "id"}, which parses and dumps
  // back to the same text).
  if (in_order_ && lines_ == points.size()) return;
  AtomicFileWriter out(log_);
  std::vector<std::int64_t> moved;  // each point's offset in the new file
  moved.reserve(points.size());
  std::int64_t at = 0;
  std::string text;
  for (const auto& [id, s] : points) {
    if (!s.has_systemc() && s.analytic_at >= canonical_from_) {
      // Its own line, {"analytic", "id"} as add() wrote it: what the dump below would give.
      text = reader().text_at(s.analytic_at);
    } else {
      Json line{{"id", id}, {"analytic", reader().at(s.analytic_at).at("analytic")}};
      if (s.has_systemc()) line["systemc"] = reader().at(s.systemc_at).at("systemc");
      text = line.dump();
    }
    text += '\n';
    out.write(text);
    moved.push_back(at);
    at += static_cast<std::int64_t>(text.size());
  }
  reader_.reset();
  out.commit();
  std::size_t k = 0;
  for (auto& [id, s] : points) {
    (void)id;
    s.analytic_at = moved[k++];
    if (s.has_systemc()) s.systemc_at = s.analytic_at;
  }
  size_ = at;
  canonical_from_ = 0;
}

}  // namespace ttsim::dse
