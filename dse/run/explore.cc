#include "dse/run/explore.h"

#include "dse/space/axes.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "core/dir_lock.h"
#include "dse/run/outputs.h"
#include "dse/run/result_stream.h"
#include "dse/search/search.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  try {
    if (slash != std::string::npos) {
      std::size_t a = 0, b = 0;
      const int i = std::stoi(text.substr(0, slash), &a);
      const int n = std::stoi(text.substr(slash + 1), &b);
      if (a == slash && b == text.size() - slash - 1 && n >= 1 && i >= 1 && i <= n) {
        return {i - 1, n};
      }
    }
  } catch (const std::exception&) {
  }
  throw InputError("--shard: expected i/N with 1 <= i <= N, found \"" + text + "\"");
}

namespace {

/// Tells the user (stderr) when `lock` took over a lock file left by a run that ended
/// without releasing it.
void note_stale_lock(const std::string& dir, const DirLock& lock) {
  if (lock.taken_over_from().empty()) return;
  std::cerr << "note: " << dir << ": took over a stale lock left by " << lock.taken_over_from()
            << " (no process holds it any more)\n";
}

// What a run killed while writing leaves in its folder: temporaries of atomic writes of the
// files it writes ("<file>.tmp.<pid>", core/atomic_file.h: its result files, state and log,
// and its plots "front_*", "breakdown*", "rank_*" with their data and scripts) and of the HLS
// build ("hls_build.emit-<pid>", the build being written, and "hls_build.old-<pid>", the
// earlier build moved aside while the new one takes its place: dse/emit/emit.cc; the run's next
// emit writes the build again from chosen.json). Anything else is the user's.
bool is_leftover(const std::string& name) {
  auto pid_tail = [&](std::size_t from) {
    return from < name.size() && name.find_first_not_of("0123456789", from) == std::string::npos;
  };
  for (const char* mark : {".emit-", ".old-"}) {
    const auto at = name.rfind(mark);
    if (at == 9 && name.compare(0, at, "hls_build") == 0) return pid_tail(at + std::string(mark).size());
  }
  const auto tmp = name.rfind(".tmp.");
  if (tmp == std::string::npos || !pid_tail(tmp + 5)) return false;
  const std::string file = name.substr(0, tmp);
  for (const char* f : {"results.csv", "results.jsonl", "results.json", "pareto.csv", "chosen.json", "summary.md",
                        "state.json", "evaluations.jsonl", "report.html"}) {
    if (file == f) return true;
  }
  const auto dot = file.rfind('.');
  const std::string ext = dot == std::string::npos ? std::string() : file.substr(dot + 1);
  const bool plot_file = ext == "svg" || ext == "csv" || ext == "gp";
  for (const char* stem : {"front_", "breakdown", "rank_"}) {
    if (plot_file && file.rfind(stem, 0) == 0) return true;
  }
  return false;
}

// Creates the output folder `dir`. An existing folder must be empty or hold a run
// (state.json): the run writes many files into it and must not overwrite the user's.
// The lock file, temporaries of a killed run and the evaluation log of a run killed
// before it first saved state.json do not count.
void prepare_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw InputError(dir + ": --out exists and is not a folder");
    if (!fs::exists(fs::path(dir) / "state.json")) {
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name == kDirLockFile || name == kEvaluationLog || is_leftover(name)) continue;
        throw InputError(dir + ": exists and is not an explore run folder (no state.json, not "
                         "empty); choose an empty or new folder");
      }
    }
    if (ec) throw InputError(dir + ": cannot read the output folder (" + ec.message() + ")");
  }
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw InputError(dir + ": cannot create the output folder (" + ec.message() + ")");
  }
}

// Removes the temporaries a killed run left in `dir` (call with the folder's lock held:
// no live writer owns them then).
void remove_leftovers(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> old;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (is_leftover(e.path().filename().string())) old.push_back(e.path());
  }
  for (const auto& p : old) fs::remove_all(p, ec);
}

std::string calibration_text(const Json& c) {
  return c.is_null() ? std::string("none") : c.value("file", std::string("?"));
}

std::string shard_text(const ExploreOptions& o) {
  return o.shard_count == 1 ? std::string()
                            : std::to_string(o.shard_index + 1) + "/" + std::to_string(o.shard_count);
}

// Finishes the run (dse/run/finish.h) and writes its outputs, results.csv and results.jsonl
// from `streamed` when it holds them (dse/run/result_stream.h).
ExploreReport close_run(const SweepEvaluator& eval, RunState& state, BatchRunner& runner,
                        const ExploreOptions& options, bool partial, ExploreReport report,
                        ResultStream* streamed = nullptr) {
  report.final = finish_run(eval, state, runner, partial);
  if (report.final.partial) report.outcome = ExploreOutcome::kInterrupted;
  if (report.time_budget_hit) {
    report.final.notes.push_back("time budget reached: the search stopped early");
  }
  runner.end_progress();
  runner.stage_line("writing the outputs in " + options.out_dir);
  if (!report.final.partial) state.compact();
  save_state(options.out_dir, state);
  report.files = write_outputs(options.out_dir, eval, state, report.final, streamed);
  if (options.extra_outputs) {
    report.files = options.extra_outputs(options.out_dir, state, report.final, report.files);
  }
  report.evaluated = state.points.size();
  return report;
}

// The sweep's axes in its point ids' order.
std::vector<std::string> axis_names(const SweepSpec& sweep) {
  std::vector<std::string> names;
  for (const auto& a : sweep.space.axes()) names.push_back(a.name);
  return names;
}

// Refuses (InputError) a run folder whose state `s` numbers the sweep's points with another
// axis order than this binary (a format-2 state of a sweep with per-layer or pointer axes
// after a named axis, written before the canonical order changed): its ids would name
// other designs here.
void check_numbering(const RunState& s, const SweepSpec& sweep, const std::string& state_file) {
  const std::vector<std::string> now = axis_names(sweep);
  const std::vector<std::string> then = s.axes.empty() ? legacy_axis_order(now) : s.axes;
  if (then == now) return;
  auto list = [](const std::vector<std::string>& v) {
    std::string t;
    for (const auto& n : v) t += (t.empty() ? "" : ", ") + n;
    return t;
  };
  throw InputError(state_file + ": its point ids number the axes in the order " + list(then) +
                   (s.axes.empty() ? " (written by an older ttsim)" : " (its /axes)") + "; this one numbers them " +
                   list(now) + ", so its ids name other designs: run the sweep again into a new --out");
}

// Refuses (InputError) shard `index` of `count` in `dir` (settings `s`) unless its
// evaluation log is that of a finished shard: compacted (ascending ids, one line per
// point) and holding an evaluation of every point of its slice. Reads the log one line at
// a time. ConfigError for a malformed line or an id outside the design space.
void check_shard_finished(const SweepEvaluator& eval, const RunState& s, int index, int count,
                          const std::string& dir) {
  const SweepSpec& sweep = eval.sweep();
  const bool systemc_all = sweep.systemc == SystemcScope::kAll && eval.evaluators().systemc;
  std::vector<PointId> slice = plan_points(sweep.space, sweep.search, sweep.budget.points, index, count);
  std::sort(slice.begin(), slice.end());
  const std::uint64_t point_count = sweep.space.size();
  JsonLinesReader in(dir + "/" + kEvaluationLog);
  std::size_t done = 0, k = 0;
  bool sorted = true;
  std::optional<PointId> last;
  Json doc;
  while (in.next(doc)) {
    const JsonView line(doc, in.where());
    line.allow_keys({"id", "analytic", "systemc"});
    const auto id = static_cast<PointId>(line.at("id").as_int(0, std::numeric_limits<std::int64_t>::max()));
    if (id >= point_count) {
      throw ConfigError(in.where(), "/id",
                        "a point id in 0.." + std::to_string(point_count - 1) + " (the sweep's design space has " +
                            std::to_string(point_count) + " points)",
                        std::to_string(id));
    }
    // Every line is read as the merge will read it, before the merge writes anything.
    if (const auto a = line.find("analytic")) (void)evaluation_from_json(*a, Fidelity::kAnalytic);
    if (const auto sc = line.find("systemc")) (void)evaluation_from_json(*sc, Fidelity::kSystemC);
    if (!std::binary_search(slice.begin(), slice.end(), id)) {
      line.at("id").fail("a point of shard " + s.shard + "'s slice (the points --shard " + s.shard + " plans)",
                         std::to_string(id));
    }
    sorted = sorted && (!last || id > *last) && line.has("analytic");
    last = id;
    while (k < slice.size() && slice[k] < id) ++k;
    if (k < slice.size() && slice[k] == id && (!systemc_all || line.has("systemc"))) ++done;
  }
  if (sorted && !in.cut_short() && done == slice.size()) return;
  const std::string why = done < slice.size()
                              ? std::to_string(done) + " of " + std::to_string(slice.size()) +
                                    " points evaluated: interrupted, killed or stopped by the time budget"
                              : "all " + std::to_string(done) + " points evaluated, but killed before its " +
                                    kEvaluationLog + " was put in id order";
  throw InputError(dir + "/state.json: shard " + s.shard + " did not finish (" + why + "); finish it with `ttsim explore " +
                   s.sweep_file + " --shard " + s.shard + " --out " + dir + " --resume`, then merge again");
}

// The next line of each shard's (compacted, ascending) log, for the merge in id order.
struct ShardCursor {
  std::unique_ptr<JsonLinesReader> in;
  Json line;
  bool more = false;
  PointId id() const { return line.at("id").get<PointId>(); }
  void advance() { more = in->next(line); }
};

// Appends every point of the shards' logs to `merged`'s log in ascending id, one point
// in memory at a time (the logs were checked by check_shard_finished).
// Returns false, with the log partly merged, when `cancel` is set (checked before the
// first point and every 1,024); true when every point is merged.
bool merge_shard_logs(const SweepEvaluator& eval, const std::vector<std::string>& shard_dirs,
                      RunState& merged, const std::atomic<bool>* cancel) {
  std::vector<ShardCursor> cursors(shard_dirs.size());
  for (std::size_t k = 0; k < shard_dirs.size(); ++k) {
    cursors[k].in = std::make_unique<JsonLinesReader>(shard_dirs[k] + "/" + kEvaluationLog);
    cursors[k].advance();
  }
  if (cancel && cancel->load()) return false;
  for (std::size_t n = 1;; ++n) {
    ShardCursor* next = nullptr;
    for (auto& c : cursors) {
      if (c.more && (!next || c.id() < next->id())) next = &c;
    }
    if (!next) break;
    const PointId id = next->id();
    const JsonView line(next->line, next->in->where());
    if (merged.points.count(id)) line.at("id").fail("a point no other shard evaluated", std::to_string(id));
    const Evaluation a = evaluation_from_json(line.at("analytic"), Fidelity::kAnalytic);
    merged.add(id, a, PointSummary::of(eval, a));
    if (const auto sc = line.find("systemc")) {
      const Evaluation e = evaluation_from_json(*sc, Fidelity::kSystemC);
      merged.add(id, e, PointSummary::of(eval, e));
    }
    if (n % 1024 == 0) {
      merged.flush();
      if (cancel && cancel->load()) return false;
    }
    next->advance();
  }
  merged.flush();
  return true;
}

// Where sweep document `now` first differs from `before` (the sweep a run folder was started
// with), by a JSON patch of one into the other (nlohmann's json::diff): " (first difference:
// /axes/lanes changed; 2 differences in all)" ("added", "removed" for a member only one has);
// "" when they are equal.
std::string sweep_difference(const Json& before, const Json& now) {
  const Json patch = Json::diff(before, now);
  if (patch.empty()) return {};
  const Json& op = patch.front();
  const std::string what = op.at("op") == "add" ? "added" : op.at("op") == "remove" ? "removed" : "changed";
  const std::string path = op.at("path").get<std::string>();
  return " (first difference: " + (path.empty() ? std::string("/") : path) + " " + what + "; " +
         std::to_string(patch.size()) + " difference" + (patch.size() == 1 ? "" : "s") + " in all)";
}

// Refuses (InputError) to continue the run `existing` of `options.out_dir` with `eval`'s sweep:
// without --resume, of another sweep, numbering, calibration or shard, or with an input file
// changed since it started.
void check_resumable(const RunState& existing, const SweepEvaluator& eval, const std::string& sweep_file,
                     const ExploreOptions& options) {
  const SweepSpec& sweep = eval.sweep();
  const std::string state_file = options.out_dir + "/state.json";
  if (!options.resume) {
    throw InputError(options.out_dir + ": already holds a run (state.json); pass --resume to "
                     "continue it or choose another --out");
  }
  if (existing.sweep_doc != sweep.doc) {
    throw InputError(state_file + ": belongs to another sweep than " + sweep_file +
                     sweep_difference(existing.sweep_doc, sweep.doc));
  }
  check_numbering(existing, sweep, state_file);
  if (existing.calibration != eval.calibration()) {
    throw InputError(state_file + ": was run with calibration " + calibration_text(existing.calibration) +
                     ", not " + calibration_text(eval.calibration()));
  }
  if (existing.shard != shard_text(options)) {
    throw InputError(state_file + ": was shard \"" + existing.shard + "\", not \"" + shard_text(options) + "\"");
  }
  check_inputs_unchanged(existing.inputs, input_fingerprint(sweep), state_file);
}

// The state of the run in options.out_dir: the one there when it may be continued
// (check_resumable), its log read back (a line a killed run cut short dropped); else a new
// one with an empty log.
RunState open_state(const SweepEvaluator& eval, const std::string& sweep_file, const ExploreOptions& options) {
  RunState state;
  if (auto existing = load_state(options.out_dir)) {
    check_resumable(*existing, eval, sweep_file, options);
    state = std::move(*existing);
    state.load_log(options.out_dir, eval, true);
  } else {
    state.start_log(options.out_dir);
  }
  return state;
}

// The run's settings into `state` (state.json): inputs, sweep, axis order, shard, calibration.
void record_settings(const SweepEvaluator& eval, const std::string& sweep_file, const ExploreOptions& options,
                     RunState& state) {
  const SweepSpec& sweep = eval.sweep();
  state.inputs = input_fingerprint(sweep);
  state.sweep_file = sweep_file;
  state.sweep_doc = sweep.doc;
  state.axes = axis_names(sweep);
  state.shard = shard_text(options);
  state.calibration = eval.calibration();
}

// The run's controls: options.control with state.json saved into the out folder after each
// batch and the time budget's deadline.
RunControl run_control(const ExploreOptions& options, const BudgetSpec& budget) {
  RunControl control = options.control;
  control.checkpoint_dir = options.out_dir;
  if (budget.seconds > 0) {
    control.deadline = std::chrono::steady_clock::now() +
                       std::chrono::microseconds(static_cast<std::int64_t>(budget.seconds * 1e6));
  }
  return control;
}

// Drives `search` to its end through `runner` (see SearchStrategy): asks for every point it
// has ready (a whole plan, a generation's new ones), evaluates them analytically and, when it
// wants them, tells it their candidates; a stop of the runner ends it.
void explore_points(SearchStrategy& search, BatchRunner& runner) {
  for (;;) {
    const std::vector<PointId> ids = search.next(std::numeric_limits<std::size_t>::max());
    if (ids.empty()) return;
    if (search.wants_results()) {
      search.report(runner.run(ids, Fidelity::kAnalytic));
    } else {
      runner.evaluate(ids, Fidelity::kAnalytic);
    }
    if (runner.stopped() != StopReason::kNone) return;
  }
}

// Fidelity systemc_all: every point of the state evaluated with SystemC too.
void evaluate_all_with_systemc(const RunState& state, BatchRunner& runner) {
  std::vector<PointId> all;
  all.reserve(state.points.size());
  for (const auto& [id, r] : state.points) {
    (void)r;
    all.push_back(id);
  }
  runner.evaluate(all, Fidelity::kSystemC);
}

// A shard's end: its log in ascending id (what merge reads) and state.json, no other file.
ExploreReport write_shard(RunState& state, BatchRunner& runner, const ExploreOptions& options,
                          ExploreReport report) {
  runner.end_progress();
  state.compact();
  save_state(options.out_dir, state);
  report.outcome = ExploreOutcome::kShardWritten;
  report.evaluated = state.points.size();
  return report;
}

// Refuses (InputError) shard folder `dir` (settings `s`) for a merge with `eval`'s sweep:
// still running, of another sweep, numbering or calibration, with an input changed, not a
// shard, or written by an older ttsim.
void check_shard_settings(const SweepEvaluator& eval, const RunState& s, const std::string& dir) {
  if (s.sweep_doc != eval.sweep().doc) {
    throw InputError(dir + "/state.json: belongs to another sweep than " + eval.sweep().file +
                     sweep_difference(s.sweep_doc, eval.sweep().doc));
  }
  check_numbering(s, eval.sweep(), dir + "/state.json");
  check_inputs_unchanged(s.inputs, input_fingerprint(eval.sweep()), dir + "/state.json");
  if (s.shard.empty()) throw InputError(dir + "/state.json: not a shard run (no --shard)");
  if (s.calibration != eval.calibration()) {
    throw InputError(dir + "/state.json: was run with calibration " + calibration_text(s.calibration) +
                     ", not " + calibration_text(eval.calibration()));
  }
  if (!s.legacy_points.is_null()) {
    throw InputError(dir + "/state.json: written by an older ttsim (its points inline); convert it with `ttsim "
                     "explore " + s.sweep_file + " --shard " + s.shard + " --out " + dir + " --resume`, then "
                     "merge again");
  }
}

// Checks that `shard_dirs` are finished shards of `eval`'s sweep covering shards 1..N once
// each (InputError otherwise, as check_shard_settings and check_shard_finished); returns the
// sweep file they were run with.
std::string check_shards(const SweepEvaluator& eval, const std::vector<std::string>& shard_dirs) {
  std::string sweep_file;
  std::set<int> seen;
  int count = 0;
  for (const auto& dir : shard_dirs) {
    if (auto holder = dir_lock_holder(dir)) {
      throw InputError(dir + ": shard still running (" + *holder + "); merge it once it has finished");
    }
    const RunState s = load_run_settings(dir);
    check_shard_settings(eval, s, dir);
    const auto [i, n] = parse_shard(s.shard);
    if (count && n != count) {
      throw InputError(dir + "/state.json: shard " + s.shard + " of a different split than " +
                       std::to_string(count));
    }
    count = n;
    if (!seen.insert(i).second) throw InputError(dir + ": shard " + s.shard + " given twice");
    check_shard_finished(eval, s, i, n, dir);
    sweep_file = s.sweep_file;
  }
  if (static_cast<int>(seen.size()) != count) {
    std::string missing;
    for (int i = 0; i < count; ++i) {
      if (!seen.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i + 1) + "/" + std::to_string(count);
    }
    throw InputError("merge: missing shard(s) " + missing);
  }
  return sweep_file;
}

}  // namespace

RunState load_run_settings(const std::string& dir) {
  auto s = load_state(dir);
  if (!s) throw InputError(dir + ": no state.json (not an explore output folder)");
  return std::move(*s);
}

ExploreReport run_explore(const SweepEvaluator& eval, const std::string& sweep_file,
                          const ExploreOptions& options) {
  const SweepSpec& sweep = eval.sweep();
  if (options.shard_count > 1 && sweep.search.strategy == Strategy::kNsga2) {
    throw InputError("--shard: the nsga2 strategy cannot be sharded (each generation needs the "
                     "previous one); use grid or random");
  }
  prepare_dir(options.out_dir);
  const DirLock lock(options.out_dir, options.resume ? "explore --resume" : "explore");
  note_stale_lock(options.out_dir, lock);
  remove_leftovers(options.out_dir);
  RunState state = open_state(eval, sweep_file, options);
  const std::size_t points_before = state.points.size();
  record_settings(eval, sweep_file, options, state);
  const RunControl control = run_control(options, sweep.budget);

  ExploreReport report;
  // A grid or random run evaluates its points in ascending id, so the log needs no
  // compaction and the rows are written as the batches finish (dse/run/result_stream.h); the
  // results do not depend on the order. Under a time budget the references go first, so a
  // run cut short has them.
  const std::unique_ptr<SearchStrategy> search =
      make_search(sweep.space, sweep.search, sweep.budget, options.shard_index, options.shard_count,
                  sweep.budget.seconds <= 0);
  report.planned = search->planned();
  if (!search->wants_results()) {
    state.points.reserve(std::max<std::size_t>(state.points.size(), report.planned));  // no regrowth
  }
  // A fresh grid or random run's rows are written as its batches finish (a shard writes
  // none; a search or a resumed run writes them from the log at its end).
  std::unique_ptr<ResultStream> rows;
  if (state.points.empty() && options.shard_count == 1 && !search->wants_results()) {
    rows = std::make_unique<ResultStream>(options.out_dir, eval);
  }
  BatchRunner runner(eval, state, control, report.planned, rows.get());
  search->stop_when([&runner] { return runner.stop_requested(); });
  explore_points(*search, runner);
  if (sweep.systemc == SystemcScope::kAll && eval.evaluators().systemc && runner.stopped() == StopReason::kNone) {
    evaluate_all_with_systemc(state, runner);
  }
  report.new_evaluations = runner.evaluated();
  report.new_points = state.points.size() - points_before;
  report.time_budget_hit = runner.stopped() == StopReason::kTimeBudget;
  const bool interrupted = runner.stopped() == StopReason::kInterrupted;
  if (!interrupted && options.shard_count > 1) return write_shard(state, runner, options, std::move(report));
  return close_run(eval, state, runner, options, interrupted, std::move(report), rows.get());
}

ExploreReport run_merge(const SweepEvaluator& eval, const std::vector<std::string>& shard_dirs,
                        const ExploreOptions& options) {
  if (shard_dirs.empty()) throw InputError("merge: no shard folders given");
  RunState merged;
  merged.sweep_file = check_shards(eval, shard_dirs);
  merged.sweep_doc = eval.sweep().doc;
  merged.axes = axis_names(eval.sweep());
  merged.inputs = input_fingerprint(eval.sweep());
  merged.calibration = eval.calibration();
  prepare_dir(options.out_dir);
  const DirLock lock(options.out_dir, "merge");
  note_stale_lock(options.out_dir, lock);
  remove_leftovers(options.out_dir);
  if (load_state(options.out_dir) && !options.resume) {
    throw InputError(options.out_dir + ": already holds a run (state.json); choose another --out");
  }
  merged.start_log(options.out_dir);
  // The points the unsharded run plans at most (a merge holds one slice of them per shard):
  // no regrowth, and no reservation of a space too large to enumerate.
  const SweepSpec& sweep = eval.sweep();
  merged.points.reserve(static_cast<std::size_t>(plan_size(sweep.space, sweep.search, sweep.budget.points)));
  if (!merge_shard_logs(eval, shard_dirs, merged, options.control.cancel)) {
    // Interrupted before the merged run had a state: its partial log is removed, and the
    // same merge starts again from the shards (they are unchanged).
    std::error_code ec;
    fs::remove(fs::path(options.out_dir) / kEvaluationLog, ec);
    ExploreReport report;
    report.outcome = ExploreOutcome::kInterrupted;
    return report;
  }
  RunControl control = options.control;
  control.checkpoint_dir = options.out_dir;
  BatchRunner runner(eval, merged, control, merged.points.size());
  ExploreReport report;
  report.planned = merged.points.size();
  return close_run(eval, merged, runner, options, false, std::move(report));
}

}  // namespace ttsim::dse
