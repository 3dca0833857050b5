#pragma once
// `ttsim accuracy-grid`: trains every run of a grid (dse/accuracy/accuracy_grid_spec.h) on a
// JointBERT-layout dataset, `jobs` runs at a time on threads, and writes the accuracy
// table (dse/accuracy/accuracy_table.h).
//
// Run folder (resumable):
//   grid.json         what the runs were trained with (engine, lr, max_epochs, patience,
//                     limit, eval_limit, fixed model sizes); a folder made with other
//                     settings is refused
//   runs/<id>.json    a finished run (AccuracyRun + its epoch history), written atomically
//                     the moment the run ends; never retrained
//   runs/<id>.ckpt    an unfinished run's parameters after its last whole epoch; the run
//                     continues from it (same numbers as uninterrupted: trainer.h)
// The table is rewritten (atomically) after every finished run and at the end, with the
// finished runs as entries and the rest under "missing".

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>

#include "dse/accuracy/accuracy_grid_spec.h"
#include "dse/accuracy/accuracy_table.h"

namespace ttsim::dse {

/// How to run a grid.
struct GridOptions {
  std::string data;        ///< dataset folder (JointBERT layout)
  std::string run_dir;     ///< run folder (created when absent)
  std::string table_out;   ///< table file to write
  int jobs = 1;            ///< runs trained at the same time (threads)
  int limit = 0;           ///< train on the first N train utterances (0 = all)
  int eval_limit = 0;      ///< score the first N dev/test utterances (0 = all)
  std::string command;     ///< the command line, for provenance
  std::string git_commit;  ///< for provenance ("" = unknown)
  const std::atomic<bool>* cancel = nullptr;  ///< set (e.g. by SIGINT) to stop
  std::ostream* progress = nullptr;           ///< progress lines (null: none)
  double progress_seconds = 10;               ///< between progress lines
};

/// What a call did.
struct GridOutcome {
  bool interrupted = false;
  int finished_before = 0;  ///< runs found finished in the run folder
  int finished_now = 0;     ///< runs finished by this call
  int total = 0;            ///< runs in the grid
  AccuracyTable table;      ///< as written to table_out
};

/// Trains the unfinished runs of `grid` and writes the table. Throws InputError when the
/// run folder belongs to another grid setting, the data or a model is unusable, or a run
/// diverges (the other runs' finished work is kept). Returns with interrupted = true
/// when `cancel` was set (finished runs and last whole epochs kept).
GridOutcome run_accuracy_grid(const GridSpec& grid, const GridOptions& options);

/// The table of the finished runs in `run_dir` for `grid` (the rest listed as missing).
AccuracyTable table_from_runs(const GridSpec& grid, const GridOptions& options,
                              std::int64_t test_samples);

}  // namespace ttsim::dse
