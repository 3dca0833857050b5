#include "dse/run/batch_runner.h"

#include <memory>
#include <optional>

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "core/errors.h"
#include "core/fault_point.h"
#include "dse/run/result_stream.h"

namespace ttsim::dse {

int checked_threads(long long threads, const std::string& flag) {
  if (threads < 0 || threads > kMaxThreads) {
    throw InputError(fmt::format("{}: expected 0 (all cores) or a worker-thread count in 1..{}, "
                                 "found {}",
                                 flag, kMaxThreads, threads));
  }
  return static_cast<int>(threads);
}

BatchRunner::BatchRunner(const SweepEvaluator& eval, RunState& state, const RunControl& control,
                         std::uint64_t planned, ResultStream* rows)
    : eval_(eval), state_(state), rows_(rows), control_(control), planned_(planned) {
  start_ = last_report_ = std::chrono::steady_clock::now();
  for (const auto& [id, s] : state_.points) {
    (void)id;
    ++done_;
    if (s.analytic_feasible) ++feasible_;
  }
}

bool BatchRunner::should_stop() {
  if (stop_ != StopReason::kNone) return true;
  if (control_.cancel && control_.cancel->load()) {
    stop_ = StopReason::kInterrupted;
  } else if (control_.interrupt_after && new_evaluations_.load() >= control_.interrupt_after) {
    stop_ = StopReason::kInterrupted;
  } else if (std::chrono::steady_clock::now() >= control_.deadline) {
    stop_ = StopReason::kTimeBudget;
  }
  return stop_ != StopReason::kNone;
}

void BatchRunner::report(bool force) {
  if (!control_.progress) return;
  const auto now = std::chrono::steady_clock::now();
  const auto every = control_.progress_terminal ? std::chrono::milliseconds(200) : std::chrono::milliseconds(10000);
  if (!force && now - last_report_ < every) return;
  last_report_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const std::uint64_t fresh = new_evaluations_.load();
  std::string eta = "?";
  if (fresh > 0 && planned_ > done_) {
    const double s = elapsed / static_cast<double>(fresh) * static_cast<double>(planned_ - done_);
    eta = fmt::format("{}:{:02}", static_cast<long>(s) / 60, static_cast<long>(s) % 60);
  } else if (planned_ <= done_) {
    eta = "0:00";
  }
  const Metric first = eval_.objectives().front();
  const std::string best =
      have_best_ ? fmt::format("{:.4g} {}", metric_info(first).maximize ? -best_ : best_,
                               metric_info(first).unit)
                 : std::string("-");
  const std::string line = fmt::format("{} / {} points, {} feasible, best analytic {} {}, ETA {}", done_, planned_,
                                       feasible_, metric_info(first).name, best, eta);
  if (control_.progress_terminal) {
    *control_.progress << "\r" << line << "   " << std::flush;
    line_open_ = true;
  } else {
    *control_.progress << line << "\n" << std::flush;
    reported_done_ = done_;
  }
}

void BatchRunner::end_progress() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (line_open_ && control_.progress) {
    report(true);
    *control_.progress << "\n" << std::flush;
    line_open_ = false;
  } else if (control_.progress && !control_.progress_terminal && done_ > reported_done_) {
    report(true);  // the last figures as a whole line
  }
}

void BatchRunner::stage_line(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!control_.progress) return;
  if (line_open_) {
    report(true);
    *control_.progress << "\n";
    line_open_ = false;
  } else if (!control_.progress_terminal && done_ > reported_done_) {
    report(true);
  }
  *control_.progress << text << "\n" << std::flush;
}

std::vector<Candidate> BatchRunner::run(const std::vector<PointId>& ids, Fidelity fidelity) {
  evaluate(ids, fidelity);
  const bool systemc = fidelity == Fidelity::kSystemC;
  std::vector<Candidate> result;
  for (PointId id : ids) {
    auto it = state_.points.find(id);
    if (it == state_.points.end()) continue;
    if (systemc && !it->second.has_systemc()) continue;
    // The search strategies see the analytic figures (what they ranked the space by).
    result.push_back(systemc ? it->second.candidate(eval_, id) : analytic_candidate(id, it->second));
  }
  return result;
}

void BatchRunner::evaluate(const std::vector<PointId>& ids, Fidelity fidelity) {
  const bool systemc = fidelity == Fidelity::kSystemC;
  std::vector<PointId> todo;
  for (PointId id : ids) {
    auto it = state_.points.find(id);
    if (it == state_.points.end() || (systemc && !it->second.has_systemc())) todo.push_back(id);
  }
  const std::size_t chunk = 1024;
  tbb::task_arena arena(control_.threads > 0 ? checked_threads(control_.threads)
                                             : tbb::task_arena::automatic);
  for (std::size_t begin = 0; begin < todo.size() && !should_stop(); begin += chunk) {
    const std::size_t end = std::min(todo.size(), begin + chunk);
    std::vector<std::optional<std::pair<Evaluation, PointSummary>>> out(end - begin);
    // The points' result rows, rendered by the workers (null: not renderable).
    const bool render = rows_ && rows_->accepting() && !systemc;
    std::vector<std::unique_ptr<RowText>> text(render ? end - begin : 0);
    std::atomic<bool> stop_flag{false};
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(begin, end, 1),
                        [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          if (stop_flag.load()) return;
          {
            std::lock_guard<std::mutex> lock(mutex_);
            if (should_stop()) {
              stop_flag = true;
              return;
            }
          }
          std::optional<PointConfig> resolved;
          Evaluation e = eval_.evaluate(todo[i], fidelity, false, render ? &resolved : nullptr);
          if (resolved) {
            try {
              PointRecord rec;
              rec.analytic = e;
              text[i - begin] = std::make_unique<RowText>(
                  render_row(eval_, make_row(eval_, todo[i], std::move(*resolved), std::move(rec))));
            } catch (const std::exception&) {  // the log's pass at the end meets it again
            }
          }
          PointSummary f = PointSummary::of(eval_, e);
          // The progress line's figures: feasibility and the first objective as its candidate has it.
          const bool feasible = f.feasible;
          const double first = objective_value(eval_.objectives().front(), f.kept.front());
          out[i - begin].emplace(std::move(e), std::move(f));
          ++new_evaluations_;
          fault_point();
          std::lock_guard<std::mutex> lock(mutex_);
          if (!systemc) {
            ++done_;
            if (feasible) {
              ++feasible_;
              if (!have_best_ || first < best_) best_ = first;
              have_best_ = true;
            }
          }
          report(false);
        }
      });
    });
    for (std::size_t i = begin; i < end; ++i) {
      if (!out[i - begin]) continue;
      state_.add(todo[i], out[i - begin]->first, std::move(out[i - begin]->second));
      if (render) rows_->append(todo[i], text[i - begin].get());
    }
    state_.flush();
    checkpoint();
  }
}

Candidate BatchRunner::analytic_candidate(PointId id, const PointSummary& s) const {
  if (!s.has_systemc()) return s.candidate(eval_, id);
  return PointSummary::of(eval_, state_.record(id).analytic).candidate(eval_, id);
}

void BatchRunner::checkpoint() {
  if (!control_.checkpoint_dir.empty()) save_state(control_.checkpoint_dir, state_);
}

bool BatchRunner::stop_requested() {
  std::lock_guard<std::mutex> lock(mutex_);
  return should_stop();
}

}  // namespace ttsim::dse
