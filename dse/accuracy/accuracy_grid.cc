#include "dse/accuracy/accuracy_grid.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "models/dataset/atis_dataset.h"
#include "models/model_spec.h"
#include "models/training/trainer.h"
#include "models/training/training_engine.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::string run_json_path(const GridOptions& o, const GridRun& r) {
  return (fs::path(o.run_dir) / "runs" / (r.id + ".json")).string();
}
std::string run_ckpt_path(const GridOptions& o, const GridRun& r) {
  return (fs::path(o.run_dir) / "runs" / (r.id + ".ckpt")).string();
}

/// The settings every run of a folder shares; a resumed folder must match them.
Json folder_identity(const GridSpec& g, const GridOptions& o) {
  return {{"engine", g.engine},   {"lr", g.lr},       {"max_epochs", g.max_epochs},
          {"patience", g.patience}, {"limit", o.limit}, {"eval_limit", o.eval_limit},
          {"fixed", g.fixed},       {"data", fs::weakly_canonical(fs::absolute(o.data)).string()}};
}

/// Refuses a run folder whose grid.json records other settings; with `write`, records this
/// grid's settings when the folder has none yet (after its runs were checked).
void check_or_write_identity(const GridSpec& g, const GridOptions& o, bool write) {
  const std::string path = (fs::path(o.run_dir) / "grid.json").string();
  const Json want = folder_identity(g, o);
  if (!fs::exists(path)) {
    if (write) write_file_atomic(path, want.dump(2) + "\n");
    return;
  }
  const Json have = load_json_file(path);
  for (auto it = want.begin(); it != want.end(); ++it) {
    // A folder made before the data folder was recorded resumes (its runs say nothing of it).
    if (it.key() == "data" && !have.contains("data")) continue;
    if (!have.contains(it.key()) || have.at(it.key()) != it.value()) {
      throw InputError(fmt::format(
          "{}: /{}: expected {} (this grid's setting), found {}: the run folder holds runs "
          "trained with other settings; use another --runs folder",
          path, it.key(), it.value().dump(),
          have.contains(it.key()) ? have.at(it.key()).dump() : std::string("nothing")));
    }
  }
}

std::string hms(double seconds) {
  const auto s = static_cast<long long>(seconds < 0 ? 0 : seconds + 0.5);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

/// What one worker is doing, read by the progress printer.
struct Slot {
  std::atomic<int> run{-1};  ///< index into the pending list, -1 idle
  std::atomic<int> epoch{0};
  std::atomic<int> samples{0};
};

AccuracyRun summarize_run(const GridRun& r, const training::TrainReport& rep) {
  std::vector<double> dev;
  double seconds = 0, train_seconds = 0;
  long long samples = 0;
  for (const auto& e : rep.epochs) {
    dev.push_back(e.dev.intent_accuracy);
    seconds += e.train_seconds + e.dev.seconds + e.test.seconds;
    train_seconds += e.train_seconds;
    samples += e.train_samples;
  }
  const auto& best = rep.epochs.at(best_epoch_index(dev));
  AccuracyRun a;
  a.seed = r.seed;
  a.best_epoch = best.epoch;
  a.stopped_epoch = rep.epochs.back().epoch;
  a.test_intent_accuracy = best.test.intent_accuracy;
  a.test_slot_f1 = best.test.slot_f1;
  a.dev_intent_accuracy = best.dev.intent_accuracy;
  a.dev_slot_f1 = best.dev.slot_f1;
  a.train_loss = best.train_loss;
  a.seconds = seconds;
  a.samples_per_second = train_seconds > 0 ? static_cast<double>(samples) / train_seconds : 0;
  return a;
}

/// The finished run stored for `r`, if any. A run file records the settings it was
/// trained with (`"settings"`, folder_identity); one trained with others is refused, so a
/// lost or replaced grid.json cannot let runs of other settings or data into the table.
std::optional<AccuracyRun> finished_run(const GridSpec& g, const GridOptions& o, const GridRun& r) {
  const std::string path = run_json_path(o, r);
  if (!fs::exists(path)) return std::nullopt;
  const Json doc = load_json_file(path);
  if (doc.contains("settings")) {
    const Json want = folder_identity(g, o);
    const Json& have = doc.at("settings");
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (!have.contains(it.key()) || have.at(it.key()) != it.value()) {
        throw InputError(fmt::format(
            "{}: /settings/{}: expected {} (this grid's setting), found {}: the run was trained with other "
            "settings; use another --runs folder",
            path, it.key(), it.value().dump(), have.contains(it.key()) ? have.at(it.key()).dump() : "nothing"));
      }
    }
  }
  return accuracy_run_from_json(JsonView(doc, path).at("run"));
}

}  // namespace

AccuracyTable table_from_runs(const GridSpec& g, const GridOptions& o, std::int64_t test_samples) {
  AccuracyTable t;
  t.description =
      "Test intent accuracy and slot F1 of the ATIS model per (encoders, TT rank or per-layer TT ranks, TTM rank), "
      "trained by `ttsim accuracy-grid`: batch-1 SGD with the " + g.engine +
      " engine; each run reports the epoch of its best dev intent accuracy; mean and sample "
      "std over seeds";
  t.fixed = g.fixed;
  t.training.engine = g.engine;
  t.training.lr = g.lr;
  t.training.max_epochs = g.max_epochs;
  t.training.patience = g.patience;
  t.training.selection = fmt::format(
      "at most {} epochs; stop once the dev intent accuracy has not improved for {} epochs; "
      "report the epoch with the best dev intent accuracy (earliest on ties)",
      g.max_epochs, g.patience);
  if (o.limit > 0) t.training.limit = o.limit;
  if (o.eval_limit > 0) t.training.eval_limit = o.eval_limit;
  t.training.test_samples = test_samples;
  t.provenance = {{"command", o.command},
                  {"data", o.data},
                  {"grid", g.file},
                  {"git_commit", o.git_commit}};
  for (const auto& r : g.runs) {
    const auto done = finished_run(g, o, r);
    if (!done) {
      auto it = std::find_if(t.missing.begin(), t.missing.end(),
                             [&](const MissingRuns& m) { return m.key == r.key; });
      if (it == t.missing.end()) it = t.missing.insert(t.missing.end(), MissingRuns{r.key, {}});
      it->seeds.push_back(r.seed);
      continue;
    }
    auto it = std::find_if(t.entries.begin(), t.entries.end(),
                           [&](const AccuracyEntry& e) { return e.key == r.key; });
    if (it == t.entries.end()) {
      AccuracyEntry e;
      e.key = r.key;
      e.model = r.model_name;
      it = t.entries.insert(t.entries.end(), e);
    }
    it->runs.push_back(*done);
  }
  for (auto& e : t.entries) summarize(e);
  std::sort(t.entries.begin(), t.entries.end(),
            [](const AccuracyEntry& a, const AccuracyEntry& b) { return a.key < b.key; });
  return t;
}

namespace {

// The model of every run, checked against the dataset before any training.
std::vector<ModelSpec> grid_models(const GridSpec& g, const GridOptions& o, const dataset::AtisDataset& ds) {
  std::vector<ModelSpec> models;  // one per run
  for (const auto& r : g.runs) {
    models.push_back(parse_model_spec(r.model, r.base_file));
    training::check_model_fits_dataset(models.back(), ds);
  }
  if (ds.train.size() == 0 || ds.test.size() == 0) {
    throw InputError(fmt::format("{}: expected at least one train and one test utterance, found {} and {}", o.data,
                                 ds.train.size(), ds.test.size()));
  }
  return models;
}

// The run folder, created when absent, and the table's place outside it (where it would replace
// the folder's settings record or a finished run); a folder of other settings is refused.
void prepare_run_folder(const GridSpec& g, const GridOptions& o) {
  const fs::path runs = fs::weakly_canonical(fs::absolute(o.run_dir));
  const fs::path table = fs::weakly_canonical(fs::absolute(o.table_out));
  const auto mismatch = std::mismatch(runs.begin(), runs.end(), table.begin(), table.end());
  if (mismatch.first == runs.end()) {
    throw InputError(fmt::format("--out {}: expected a path outside the --runs folder {}, found one inside it",
                                 o.table_out, o.run_dir));
  }
  std::error_code ec;
  fs::create_directories(fs::path(o.run_dir) / "runs", ec);
  if (ec || !fs::is_directory(fs::path(o.run_dir) / "runs")) {
    throw InputError(fmt::format("--runs {}: cannot create the folder {}/runs ({})", o.run_dir, o.run_dir,
                                 ec ? ec.message() : std::string("a file is in the way")));
  }
  check_or_write_identity(g, o, false);
}

// Trains the pending runs of a grid on `jobs` threads, writing each finished run and the table
// as it goes, with a progress line every progress_seconds (see run_accuracy_grid).
class GridTraining {
 public:
  GridTraining(const GridSpec& g, const GridOptions& o, const dataset::AtisDataset& ds,
               const std::vector<ModelSpec>& models, GridOutcome& out)
      : g_(g), o_(o), ds_(ds), models_(models), out_(out) {
    test_samples_ = o.eval_limit > 0 && o.eval_limit < ds.test.size() ? o.eval_limit : ds.test.size();
    n_train_ = o.limit > 0 && o.limit < ds.train.size() ? o.limit : ds.train.size();
    out.total = static_cast<int>(g.runs.size());
    for (std::size_t i = 0; i < g.runs.size(); ++i) {
      if (finished_run(g, o, g.runs[i])) {
        ++out.finished_before;
      } else {
        pending_.push_back(i);
      }
    }
  }

  void run();

 private:
  bool cancelled() const { return stop_.load() || (o_.cancel && o_.cancel->load()); }
  // The table of the runs finished so far, written (the caller holds table_mutex_).
  void write_table() {
    out_.table = table_from_runs(g_, o_, test_samples_);
    write_file_atomic(o_.table_out, accuracy_table_to_json(out_.table).dump(2) + "\n");
  }
  void worker(Slot& slot);
  void train(const GridRun& r, const ModelSpec& model, Slot& slot, std::atomic<bool>& cancel);
  training::TrainOptions train_options(const GridRun& r, const ModelSpec& model, Slot& slot,
                                       std::atomic<bool>& cancel);
  void finish(const GridRun& r, const training::TrainReport& report);
  void show_progress();

  const GridSpec& g_;
  const GridOptions& o_;
  const dataset::AtisDataset& ds_;
  const std::vector<ModelSpec>& models_;
  GridOutcome& out_;
  std::int64_t test_samples_ = 0;
  int n_train_ = 0;
  std::vector<std::size_t> pending_;
  std::mutex table_mutex_;  // serializes table writes and the error slot
  std::atomic<bool> stop_{false};  // an error in one run stops the others
  std::atomic<std::size_t> next_{0};
  std::atomic<long long> units_done_{0}, samples_done_{0};
  std::atomic<int> finished_now_{0};
  std::exception_ptr error_;
  std::string error_run_;
  std::vector<Slot> slots_;
};

void GridTraining::run() {
  check_or_write_identity(g_, o_, true);
  {
    std::lock_guard<std::mutex> lock(table_mutex_);
    write_table();
  }
  if (o_.progress) {
    if (pending_.empty()) {
      *o_.progress << fmt::format("{} runs: {} finished before, none to train\n", out_.total, out_.finished_before);
    } else {
      *o_.progress << fmt::format("{} runs: {} finished before, {} to train ({} at a time), {} train "
                                  "samples per epoch, at most {} epochs\n",
                                  out_.total, out_.finished_before, pending_.size(),
                                  std::min<std::size_t>(o_.jobs, pending_.size()), n_train_, g_.max_epochs);
    }
  }
  const int jobs = static_cast<int>(std::min<std::size_t>(o_.jobs, std::max<std::size_t>(pending_.size(), 1)));
  slots_ = std::vector<Slot>(static_cast<std::size_t>(jobs));
  std::vector<std::thread> threads;
  for (auto& s : slots_) threads.emplace_back([this, &s] { worker(s); });
  show_progress();
  for (auto& th : threads) th.join();
  out_.finished_now = finished_now_;
  {
    std::lock_guard<std::mutex> lock(table_mutex_);
    write_table();
  }
  if (error_) {
    if (o_.progress) *o_.progress << "run " << error_run_ << " failed; finished runs are kept\n";
    std::rethrow_exception(error_);
  }
  out_.interrupted = o_.cancel && o_.cancel->load() && out_.finished_before + out_.finished_now < out_.total;
}

// Takes pending runs one at a time until none is left, the caller cancels or a run fails
// (its error kept for run() to rethrow, the other workers stopped).
void GridTraining::worker(Slot& slot) {
  std::atomic<bool> my_cancel{false};
  while (!cancelled()) {
    const std::size_t p = next_.fetch_add(1);
    if (p >= pending_.size()) break;
    const GridRun& r = g_.runs[pending_[p]];
    slot.epoch = 0;
    slot.samples = 0;
    slot.run = static_cast<int>(p);
    try {
      train(r, models_[pending_[p]], slot, my_cancel);
    } catch (const training::Cancelled&) {
      break;
    } catch (...) {
      std::lock_guard<std::mutex> lock(table_mutex_);
      if (!error_) {
        error_ = std::current_exception();
        error_run_ = r.id;
      }
      stop_ = true;
      break;
    }
  }
  slot.run = -1;
}

training::TrainOptions GridTraining::train_options(const GridRun& r, const ModelSpec& model, Slot& slot,
                                                   std::atomic<bool>& cancel) {
  training::TrainOptions t;
  t.epochs = static_cast<int>(g_.max_epochs);
  t.lr = static_cast<float>(g_.lr);
  t.seed = static_cast<std::uint64_t>(r.seed);
  t.limit = o_.limit;
  t.eval_limit = o_.eval_limit;
  t.seq_len = static_cast<int>(model.seq_len);
  t.checkpoint_path = run_ckpt_path(o_, r);
  // Cancellation: the caller's flag or another run's error.
  t.cancel = &cancel;
  const long long weight = model.encoders + 1;
  t.on_sample = [this, &slot, &cancel, weight](int epoch, int done) {
    slot.epoch = epoch;
    slot.samples = done;
    units_done_ += weight;
    ++samples_done_;
    if (cancelled()) cancel = true;
  };
  t.stop_early = [this](const std::vector<training::EpochResult>& epochs) {
    std::vector<double> dev;
    for (const auto& e : epochs) dev.push_back(e.dev.intent_accuracy);
    return should_stop(dev, g_.patience);
  };
  return t;
}

// Trains run `r` (from its checkpoint when it has one) and records it (finish).
void GridTraining::train(const GridRun& r, const ModelSpec& model, Slot& slot, std::atomic<bool>& cancel) {
  training::EngineSetup setup;
  setup.model = model;
  setup.data = training::dataset_shape(ds_);
  setup.seed = static_cast<std::uint64_t>(r.seed);
  auto engine = training::make_engine(g_.engine, setup);
  const training::TrainOptions t = train_options(r, model, slot, cancel);
  training::RunIdentity id;
  id.engine = g_.engine;
  id.model = model.name;
  id.seed = t.seed;
  id.lr = t.lr;
  id.train_samples = n_train_;
  id.vocab = ds_.vocab.size();
  id.seq_len = t.seq_len;
  finish(r, training::train(*engine, ds_, t, id, nullptr));
}

// Writes the finished run `r` (runs/<id>.json, its checkpoint removed) and the table, and
// says so.
void GridTraining::finish(const GridRun& r, const training::TrainReport& report) {
  const AccuracyRun a = summarize_run(r, report);
  Json doc = training::train_report_to_json(report);
  doc["run"] = accuracy_run_to_json(a);
  doc["id"] = r.id;
  doc["settings"] = folder_identity(g_, o_);
  doc["base_model"] = r.base_file;
  doc["git_commit"] = o_.git_commit;  // the commit this run was trained at (the table's is when it was written)
  doc["encoders"] = r.key.encoders;
  if (r.key.per_layer()) {
    doc["layer_ranks"] = Json(r.key.layer_ranks);
  } else {
    doc["tt_rank"] = r.key.tt_rank;
  }
  doc["ttm_rank"] = r.key.ttm_rank;
  std::lock_guard<std::mutex> lock(table_mutex_);
  write_file_atomic(run_json_path(o_, r), doc.dump(2) + "\n");
  std::error_code ec;
  fs::remove(run_ckpt_path(o_, r), ec);
  ++finished_now_;
  write_table();
  if (!o_.progress) return;
  *o_.progress << fmt::format(
      "finished {} ({}): test intent {:.2f} %, slot F1 {:.2f}, best epoch {} of {}, "
      "{:.0f} s, {:.1f} samples/s{}\n",
      r.id, r.model_name, 100 * a.test_intent_accuracy, 100 * a.test_slot_f1, a.best_epoch, a.stopped_epoch,
      a.seconds, a.samples_per_second,
      report.resumed_after_epoch > 0
          ? fmt::format(" (resumed from its checkpoint after epoch {})", report.resumed_after_epoch)
          : std::string());
  o_.progress->flush();
}

// Progress and ETA until every worker is done. Remaining work is counted in samples ×
// (encoders + 1) (a step costs about one encoder's share more for the embedding and heads) at
// max_epochs, so the ETA is an upper bound when runs stop early.
void GridTraining::show_progress() {
  const auto t0 = Clock::now();
  long long total_units = 0;
  for (std::size_t p : pending_) total_units += g_.max_epochs * n_train_ * (models_[p].encoders + 1);
  auto last = Clock::now();
  for (;;) {
    bool busy = false;
    for (const auto& s : slots_) busy = busy || s.run >= 0;
    if (!busy && (next_ >= pending_.size() || cancelled())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto now = Clock::now();
    if (!o_.progress || std::chrono::duration<double>(now - last).count() < o_.progress_seconds) continue;
    last = now;
    const double elapsed = std::chrono::duration<double>(now - t0).count();
    std::string running;
    for (const auto& s : slots_) {
      const int p = s.run;
      if (p < 0) continue;
      running += fmt::format(" | {} ep {} {}/{}", g_.runs[pending_[static_cast<std::size_t>(p)]].id,
                             s.epoch.load(), s.samples.load(), n_train_);
    }
    const double rate = elapsed > 0 ? static_cast<double>(units_done_) / elapsed : 0;
    const long long finished_units = units_done_;
    const double eta = rate > 0 ? static_cast<double>(total_units - finished_units) / rate : 0;
    *o_.progress << fmt::format("[{}/{} done]{} | {:.1f} samples/s | elapsed {} | ETA <= {}\n",
                                out_.finished_before + finished_now_.load(), out_.total, running,
                                elapsed > 0 ? samples_done_ / elapsed : 0.0, hms(elapsed),
                                rate > 0 ? hms(eta) : std::string("?"));
    o_.progress->flush();
  }
}

}  // namespace

GridOutcome run_accuracy_grid(const GridSpec& g, const GridOptions& o) {
  if (o.jobs < 1) throw InputError(fmt::format("--jobs: expected >= 1, found {}", o.jobs));
  const auto ds = dataset::load_atis_dataset(o.data);
  const std::vector<ModelSpec> models = grid_models(g, o, ds);
  prepare_run_folder(g, o);
  GridOutcome out;
  GridTraining(g, o, ds, models, out).run();
  return out;
}

}  // namespace ttsim::dse
