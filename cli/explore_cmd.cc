// `ttsim explore SWEEP --out DIR`: sweep a design space with the simulator, keep the
// feasible points, find the Pareto front, choose a design and emit its HLS build.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "dse/emit/emit.h"
#include "dse/run/explore.h"
#include "dse/evaluate/resolve.h"
#include "dse/run_setup.h"

namespace ttsim::cli {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

/// The options of `explore`.
struct ExploreCmdOptions {
  std::string sweep_file, out, shard, calibration, hls_root;
  int threads = 0;
  bool resume = false, no_progress = false;
};

/// Parses `args` into `o`; false when --help was given (usage printed). Throws InputError
/// for a bad or missing option.
bool parse_explore_options(const std::vector<std::string>& args, ExploreCmdOptions& o) {
  po::options_description opts("options");
  opts.add_options()("sweep", po::value(&o.sweep_file)->required(), "sweep file (configs/sweeps/*.json)")(
      "out", po::value(&o.out)->required(), "output folder (created; locked for the whole run: a second writer is refused, exit 2)")(
      "resume", "continue the run already in --out")(
      "shard", po::value(&o.shard), "evaluate only slice i of N of the point list (i/N, 1-based)")(
      "calibration", po::value(&o.calibration),
      "calibration file from `ttsim calibrate` applied to every point (per-loop depth adjustments, kernel "
      "overheads, "
      "operator latencies, power coefficients); refused for another part or clock")(
      "threads", po::value(&o.threads), "worker threads, 1..256 (default 0: all cores)")(
      "hls-root", po::value(&o.hls_root),
      "folder holding the hls/ kernel tree emitted into hls_build/ (default: the working "
      "directory, else the checkout the ttsim binary was built from)")(
      "no-progress", "no progress on stderr (otherwise a line redrawn in place on a terminal, a line every 10 s when "
      "stderr is a file or a pipe)");
  po::positional_options_description pos;
  pos.add("sweep", 1);
  po::variables_map vm;
  if (!parse_options("explore", "SWEEP --out DIR [--calibration C] [--resume] [--shard i/N] [--threads N] [--hls-root DIR] [--no-progress]", opts, pos,
                     args, vm)) {
    return false;
  }
  o.resume = vm.count("resume") > 0;
  o.no_progress = vm.count("no-progress") > 0;
  return true;
}

/// Prints what the run `r` of `setup` ended with, taking `secs` seconds, and returns the
/// exit code: 130 when interrupted (before or after the last evaluation), 0 otherwise.
int report_explore(const dse::ExploreReport& r, const dse::RunSetup& setup, const ExploreCmdOptions& o, double secs) {
  // Ctrl-C after the last evaluation (while the outputs and plots were written): the
  // files may be incomplete (a plot not drawn), so the run is not reported as finished.
  if (g_interrupted && r.outcome != dse::ExploreOutcome::kInterrupted) {
    std::cerr << fmt::format("interrupted while writing the outputs in {}: they may be incomplete; run the "
                             "same command with --resume to write them again\n",
                             o.out);
    return 130;
  }
  switch (r.outcome) {
    case dse::ExploreOutcome::kInterrupted:
      std::cerr << fmt::format("interrupted: {} points saved in {}; continue with --resume\n", r.evaluated, o.out);
      return 130;
    case dse::ExploreOutcome::kShardWritten:
      std::cout << fmt::format("shard {}: {} points evaluated in {:.1f} s; join the shards with "
                               "`ttsim merge --out DIR <shard dirs>`\n",
                               o.shard, r.evaluated, secs);
      return 0;
    case dse::ExploreOutcome::kComplete:
      break;
  }
  const std::uint64_t feasible = r.final.feasible;
  std::cout << fmt::format(
      "{} points ({} new), {} feasible{}, Pareto front {} ({} SystemC-evaluated), {:.1f} s\n", r.evaluated,
      r.new_points, feasible,
      dse::not_evaluated_clause(r.final),
      r.final.front.size(), r.final.systemc_points, secs);
  if (r.final.chosen) {
    std::cout << fmt::format("chosen: id {} {} ({})\n  {}\n", *r.final.chosen,
                             dse::point_name(setup.sweep, *r.final.chosen),
                             setup.sweep.space.describe(*r.final.chosen), r.final.why);
  } else {
    std::cout << "no feasible design\n";
  }
  for (const auto& n : r.final.notes) std::cout << "note: " << n << "\n";
  std::string files;
  for (const auto& f : r.files) files += (files.empty() ? "" : ", ") + f;
  std::cout << "results in " << o.out << ": " << files << "\n";
  return 0;
}

int run_explore_cmd(const std::vector<std::string>& args) {
  ExploreCmdOptions c;
  if (!parse_explore_options(args, c)) return 0;
  const auto start = std::chrono::steady_clock::now();
  const int n_threads = dse::checked_threads(c.threads);  // before any work
  // The HLS kernel tree is needed at the end (hls_build/): find it before evaluating
  // anything. A shard writes only its state and evaluation log and needs none.
  if (c.shard.empty()) c.hls_root = dse::find_hls_root(c.hls_root);
  auto setup = dse::make_run_setup(c.sweep_file, c.calibration);
  dse::ExploreOptions o;
  o.out_dir = c.out;
  o.resume = c.resume;
  if (!c.shard.empty()) std::tie(o.shard_index, o.shard_count) = dse::parse_shard(c.shard);
  o.control.threads = n_threads;
  o.control.cancel = &g_interrupted;
  if (!c.no_progress) {
    o.control.progress = &std::cerr;
    o.control.progress_terminal = ::isatty(2) != 0;
  }
  o.extra_outputs = dse::standard_extra_outputs(*setup, c.hls_root);
  // SIGTERM (a batch scheduler's stop, `kill`) stops the run as Ctrl-C does: what is done is
  // saved, the temporary files are removed, --resume continues.
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
  const auto r = dse::run_explore(*setup->eval, c.sweep_file, o);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report_explore(r, *setup, c, secs);
}

const CommandRegistration reg({"explore",
                               "sweep a design space: constraints, Pareto front, chosen design, HLS build",
                               run_explore_cmd});

}  // namespace
}  // namespace ttsim::cli
