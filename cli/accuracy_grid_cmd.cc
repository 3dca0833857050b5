// `ttsim accuracy-grid`: trains a grid of (encoders, TT rank, seed) runs on ATIS with the
// compressed Eigen reference engine and writes the explorer's accuracy table
// (dse/accuracy/accuracy_grid.h). Ctrl-C stops after keeping every finished run and each running
// run's last whole epoch (exit 130); the same command resumes.

#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/errors.h"
#include "dse/accuracy/accuracy_grid.h"
#include "dse/accuracy/accuracy_grid_spec.h"
#include "dse/accuracy/accuracy_lookup.h"

namespace ttsim::cli {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_grid_sigint(int) { g_interrupted = true; }

/// The working directory's commit, `git describe --always --dirty --abbrev=40` (the full
/// hash, "-dirty" when the tree has uncommitted changes); "" when unavailable.
std::string git_commit() {
  std::string out;
  if (FILE* p = ::popen("git describe --always --dirty --abbrev=40 2>/dev/null", "r")) {
    char buf[128];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string pct(const dse::Spread& s) {
  return s.std ? fmt::format("{:6.2f} ± {:4.2f}", 100 * s.mean, 100 * *s.std)
               : fmt::format("{:6.2f}       ", 100 * s.mean);
}

/// tt_rank column: the rank, or "layers" for a per-layer entry (listed with its model name).
std::string rank_cell(const dse::AccuracyKey& k) { return k.per_layer() ? "layers" : std::to_string(k.tt_rank); }

void print_table(const dse::AccuracyTable& t) {
  std::cout << fmt::format("{:>8} {:>7} {:>8} {:>2} {:>15} {:>15} {:>15} {:>12} {:>10}\n", "encoders",
                           "tt_rank", "ttm_rank", "n", "test_intent%", "test_slot_f1", "dev_intent%",
                           "best/stop", "s/run");
  for (const auto& e : t.entries) {
    std::string epochs;
    double seconds = 0;
    for (const auto& r : e.runs) {
      epochs += fmt::format("{}{}/{}", epochs.empty() ? "" : ",", r.best_epoch, r.stopped_epoch);
      seconds += r.seconds;
    }
    std::cout << fmt::format("{:>8} {:>7} {:>8} {:>2} {:>15} {:>15} {:>15} {:>12} {:>10.0f}{}\n",
                             e.key.encoders, rank_cell(e.key), e.key.ttm_rank, e.runs.size(),
                             pct(e.test_intent_accuracy), pct(e.test_slot_f1),
                             pct(e.dev_intent_accuracy), epochs, seconds / e.runs.size(),
                             e.key.per_layer() ? "  " + e.model : std::string());
  }
  for (const auto& m : t.missing) {
    std::string seeds;
    for (auto s : m.seeds) seeds += fmt::format("{}{}", seeds.empty() ? "" : ",", s);
    std::cout << fmt::format("{:>8} {:>7} {:>8}  missing seeds {}{}\n", m.key.encoders, rank_cell(m.key),
                             m.key.ttm_rank, seeds, m.key.per_layer() ? " (" + m.key.describe() + ")" : std::string());
  }
}

/// Pooled sample std of the test intent accuracy over the entries `pick` selects (fraction).
template <class Pick>
double pooled_std(const dse::AccuracyTable& t, Pick pick) {
  double ss = 0, dof = 0;
  for (const auto& e : t.entries) {
    if (!pick(e) || !e.test_intent_accuracy.std) continue;
    ss += (static_cast<double>(e.runs.size()) - 1) * *e.test_intent_accuracy.std * *e.test_intent_accuracy.std;
    dof += static_cast<double>(e.runs.size()) - 1;
  }
  return dof > 0 ? std::sqrt(ss / dof) : 0.0;
}

/// The per-layer accuracy model against the table's per-layer entries (held-out trainings),
/// per encoder count of the grid: prediction, error, MAE and RMS against the seed spread.
void print_per_layer_check(const dse::AccuracyTable& t, const dse::GridSpec& g) {
  std::set<std::int64_t> done;
  for (const auto& run : g.runs) {
    if (!done.insert(run.key.encoders).second) continue;
    const auto checks = dse::per_layer_checks(t, run.model);
    if (checks.empty()) continue;
    std::cout << fmt::format("\nper-layer accuracy model (least-squares line of accuracy against ln(TT weight "
                             "parameters) through the uniform ranks, dse/accuracy/accuracy_lookup.h) on {} held-out "
                             "{}-encoder designs:\n",
                             checks.size(), run.key.encoders);
    std::cout << fmt::format("{:<34} {:>10} {:>15} {:>8} {:>7}\n", "model", "TT words", "test_intent%", "model%",
                             "error");
    double ss = 0, sa = 0, seeds = 0;
    std::size_t n = 0;
    for (const auto& c : checks) {
      if (!c.unknown_reason.empty()) {
        std::cout << fmt::format("{:<34} {}\n", c.entry->model, c.unknown_reason);
        continue;
      }
      const double d = c.entry->test_intent_accuracy.mean - c.predicted;
      ss += d * d;
      sa += std::abs(d);
      ++n;
      seeds += static_cast<double>(c.entry->runs.size());
      std::cout << fmt::format("{:<34} {:>10} {:>15} {:>8.2f} {:>+7.2f}\n", c.entry->model, c.tt_weight_params,
                               pct(c.entry->test_intent_accuracy), 100 * c.predicted, 100 * d);
    }
    if (n == 0) continue;
    const auto enc = run.key.encoders;
    const double held_std =
        pooled_std(t, [&](const dse::AccuracyEntry& e) { return e.key.encoders == enc && e.key.per_layer(); });
    std::cout << fmt::format(
        "mean absolute error {:.2f} points, RMS {:.2f} (measured minus model); seed std, pooled: {:.2f} points over "
        "these designs ({:.2f} for the mean of their {:.3g} seeds), {:.2f} over the uniform {}-encoder ranks; the "
        "explorer uses the model with the RMS added to its SE once {} or more designs check it\n",
        100 * sa / n, 100 * std::sqrt(ss / n), 100 * held_std, 100 * held_std / std::sqrt(seeds / n), seeds / n,
        100 * pooled_std(t, [&](const dse::AccuracyEntry& e) { return e.key.encoders == enc && !e.key.per_layer(); }),
        enc, dse::kPerLayerValidationMin);
  }
}

int run_accuracy_grid_cmd(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string grid_file;
  dse::GridOptions o;
  options.add_options()
      ("grid", po::value<std::string>(&grid_file)->required(),
       "grid file (configs/datasets/atis_accuracy_grid.json): models, tt_ranks, seeds, engine, "
       "lr, max_epochs, patience")
      ("data", po::value<std::string>(&o.data)->required(), "dataset folder (JointBERT layout)")
      ("runs", po::value<std::string>(&o.run_dir)->required(),
       "run folder: finished runs and checkpoints; an existing one is resumed")
      ("out", po::value<std::string>(&o.table_out)->required(),
       "accuracy table to write (rewritten after every finished run)")
      ("jobs", po::value<int>(&o.jobs)->default_value(1), "runs trained at the same time (threads)")
      ("limit", po::value<int>(&o.limit)->default_value(0),
       "train on the first N train utterances only (0 = all)")
      ("eval-limit", po::value<int>(&o.eval_limit)->default_value(0),
       "score the first N dev and test utterances only (0 = all)")
      ("progress-seconds", po::value<double>(&o.progress_seconds)->default_value(30),
       "seconds between progress lines on stderr");
  po::variables_map vm;
  if (!parse_options("accuracy-grid",
                     "--grid FILE --data DIR --runs DIR --out TABLE.json [--jobs N] [--limit N] "
                     "[--eval-limit N]",
                     options, {}, args, vm)) {
    return 0;
  }
  if (o.limit < 0) throw InputError(fmt::format("--limit: expected >= 0, found {}", o.limit));
  if (o.eval_limit < 0) throw InputError(fmt::format("--eval-limit: expected >= 0, found {}", o.eval_limit));
  if (o.jobs < 1) throw InputError(fmt::format("--jobs: expected >= 1, found {}", o.jobs));
  if (!std::isfinite(o.progress_seconds) || o.progress_seconds <= 0) {
    throw InputError(fmt::format("--progress-seconds: expected seconds > 0, found {}", o.progress_seconds));
  }
  refuse_clashing_paths({{"--out", o.table_out}}, {{"--grid", grid_file}});
  refuse_output_inside({"--out", o.table_out}, {"--data", o.data});
  check_output_writable({"--out", o.table_out});
  const auto grid = dse::load_grid_spec(grid_file);
  o.command = "ttsim accuracy-grid";
  for (const auto& a : args) o.command += " " + a;
  o.git_commit = git_commit();
  o.progress = &std::cerr;
  o.cancel = &g_interrupted;
  std::signal(SIGINT, on_grid_sigint);
  std::signal(SIGTERM, on_grid_sigint);
  const auto r = dse::run_accuracy_grid(grid, o);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  print_table(r.table);
  print_per_layer_check(r.table, grid);
  const int done = r.finished_before + r.finished_now;
  if (r.interrupted) {
    std::cerr << fmt::format("interrupted: {} of {} runs finished (kept in {}), table {} written; "
                             "run the same command to continue\n",
                             done, r.total, o.run_dir, o.table_out);
    return 130;
  }
  std::cout << fmt::format("{} of {} runs finished ({} now); table written to {}\n", done, r.total,
                           r.finished_now, o.table_out);
  return 0;
}

const CommandRegistration kRegistration{
    {"accuracy-grid", "train the (encoders, TT rank, seed) grid and write the accuracy table",
     run_accuracy_grid_cmd}};

}  // namespace
}  // namespace ttsim::cli
