#include "sim/sc_engine.h"

#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <stdexcept>
#include <string>

#include <systemc>

#include "hw/loop_nest.h"

namespace ttsim {

std::vector<std::vector<BankTraffic>> task_bank_traffic(const TaskGraph& graph, const BankMap& banks,
                                                        const std::vector<std::int64_t>& footprint) {
  std::vector<std::vector<BankTraffic>> out(graph.tasks.size());
  for (const Task& t : graph.tasks) {
    auto& v = out[t.id];
    // A contraction's operands (models/training_graph.cc contraction_memories): C is the
    // written buffer, A and B the first two other reads outside index_mem.
    const TaskShape& s = t.shape;
    const bool reduce = s.variant >= 0 && (s.variant & ttsim_spec::kContractReduceBatch) != 0;
    const std::int64_t c_words = (reduce ? 1 : s.batch) * s.rows * s.cols;
    const std::int64_t ab_words[2] = {s.batch * s.rows * s.inner, s.batch * s.inner * s.cols};
    const int c_buffer = t.writes.empty() ? -1 : t.writes[0];
    int operand = 0;
    for (const auto* list : {&t.reads, &t.writes}) {
      for (int b : *list) {
        // A row-wise or element-wise task touches at most its elements of any buffer (the
        // position add of a K-token step reads K rows of the 32-row table); a contraction
        // streams the distinct words of each operand once, at most the operand's elements
        // (the intent head accumulates one row of dX into the slot head's K-row buffer). The
        // operand's role is decided before the bank check, so an unbanked A leaves B its own.
        std::int64_t words = std::min(footprint[b], t.elements);
        if (t.op == TaskOp::kContraction) {
          words = footprint[b];
          if (b == c_buffer) {
            words = std::min(words, c_words);
          } else if (list == &t.reads && graph.buffers[b].memory != ttsim_spec::kIndexMem && operand < 2) {
            words = std::min(words, ab_words[operand++]);
          }
        }
        const int bank = banks.bank_of_buffer[b];
        if (bank < 0) continue;
        auto it = std::find_if(v.begin(), v.end(), [&](const BankTraffic& x) { return x.bank == bank; });
        if (it == v.end()) v.push_back({bank, words});
        else it->words += words;
      }
    }
  }
  return out;
}

namespace {

using sc_core::sc_event;
using sc_core::sc_module;
using sc_core::sc_module_name;
using sc_core::sc_time;

constexpr std::uint64_t kPsPerCycle = 1000;  // one cycle = 1 ns of SystemC time

std::int64_t now_cycles() {
  return static_cast<std::int64_t>(sc_core::sc_time_stamp().value() / kPsPerCycle);
}

class Scheduler;

/// One unit instance (contraction engine or nonlinear unit): holds its task for the
/// task's duration, then reports completion to the scheduler.
class KernelUnit : public sc_module {
 public:
  SC_HAS_PROCESS(KernelUnit);
  KernelUnit(sc_module_name name, Scheduler* scheduler, int kind, int index)
      : sc_module(name), scheduler_(scheduler), unit_kind_(kind), unit_index_(index) {
    SC_METHOD(finish);
    sensitive << done_;
    dont_initialize();
  }
  void start(int task, std::int64_t cycles) {
    task_ = task;
    done_.notify(sc_time::from_value(static_cast<std::uint64_t>(cycles) * kPsPerCycle));
  }

 private:
  void finish();
  Scheduler* scheduler_;
  int unit_kind_, unit_index_;  ///< for debugging views of the hierarchy
  int task_ = -1;
  sc_event done_;
};

/// A BRAM36/URAM288 bank's port budget.
class BankPorts : public sc_module {
 public:
  BankPorts(sc_module_name name, int ports) : sc_module(name), free_(ports) {}
  bool can_take(int p) const { return free_ >= p; }
  void take(int p) { free_ -= p; }
  void give(int p) { free_ += p; }

 private:
  int free_;
};

/// Per-task port reservation on one bank.
struct Reservation {
  int bank;
  int ports;
};

/// Dispatches ready tasks to free units and banks.
class Scheduler : public sc_module {
 public:
  SC_HAS_PROCESS(Scheduler);
  Scheduler(sc_module_name name, const SchedGraph& sg, const BankMap& banks,
            const std::vector<std::vector<BankTraffic>>& traffic, const EngineOptions& opt,
            EngineResult& result)
      : sc_module(name), sg_(sg), contention_(opt.port_contention), result_(result) {
    const int n = static_cast<int>(sg.tasks.size());
    result_.schedule.tasks.assign(n, TaskTime{});
    duration_.resize(n);
    reservations_.resize(n);
    pending_.resize(n);
    for (int i = 0; i < n; ++i) {
      const std::int64_t lat = sg.tasks[i].cycles + (opt.extra_cycles.empty() ? 0 : opt.extra_cycles[i]);
      std::int64_t dur = lat;
      if (contention_) {
        for (const BankTraffic& bt : traffic[i]) {
          const BankInstance& b = banks.banks[bt.bank];
          const std::int64_t per_cycle = b.words_per_port_cycle;
          const int p = static_cast<int>(std::min<std::int64_t>(b.ports, ceil_div(bt.words, lat * per_cycle)));
          if (p <= 0) continue;
          reservations_[i].push_back({bt.bank, p});
          dur = std::max(dur, ceil_div(bt.words, p * per_cycle));
        }
      }
      duration_[i] = dur;
      pending_[i] = static_cast<int>(sg.tasks[i].deps.size());
      if (pending_[i] == 0) ready_.insert(i);
    }
    for (int k = 0; k < kUnitKinds; ++k) {
      int count = sg.unit_count[k];
      if (opt.unlimited_units) {
        count = 0;
        for (const auto& t : sg.tasks) count += t.unit == k;
      }
      result_.instances[k] = count;
      for (int u = 0; u < count; ++u) {
        units_[k].push_back(std::make_unique<KernelUnit>(
            (std::string(to_string(static_cast<UnitKind>(k))) + "_" + std::to_string(u)).c_str(), this, k, u));
        free_[k].push(u);
      }
    }
    for (std::size_t b = 0; b < banks.banks.size(); ++b) {
      banks_.push_back(std::make_unique<BankPorts>(("bank_" + std::to_string(b)).c_str(), banks.banks[b].ports));
    }
    SC_METHOD(dispatch);
    sensitive << wake_;
  }

  void completed(int task) {
    completed_.push_back(task);
    wake_.notify(sc_core::SC_ZERO_TIME);
  }
  int done() const { return done_; }

 private:
  bool ports_available(int t) const {
    for (const Reservation& r : reservations_[t]) {
      if (!banks_[r.bank]->can_take(r.ports)) return false;
    }
    return true;
  }

  void dispatch() {
    const std::int64_t now = now_cycles();
    for (int t : completed_) {
      ++done_;
      ++result_.schedule.events;
      result_.schedule.makespan = std::max(result_.schedule.makespan, now);
      free_[sg_.tasks[t].unit].push(result_.schedule.tasks[t].unit_index);
      for (const Reservation& r : reservations_[t]) banks_[r.bank]->give(r.ports);
      for (int j = sg_.succ_begin[t]; j < sg_.succ_begin[t + 1]; ++j) {
        const int u = sg_.succ[j];
        if (--pending_[u] == 0) ready_.insert(u);
      }
    }
    completed_.clear();
    for (auto it = ready_.begin(); it != ready_.end();) {
      const int t = *it;
      auto& free = free_[sg_.tasks[t].unit];
      if (free.empty() || (contention_ && !ports_available(t))) {
        ++it;
        continue;
      }
      const int unit = free.top();
      free.pop();
      const std::int64_t end = now + duration_[t];
      result_.schedule.tasks[t] = {now, end, unit};
      ++result_.schedule.events;
      for (const Reservation& r : reservations_[t]) {
        banks_[r.bank]->take(r.ports);
        result_.bank_slices.push_back({r.bank, t, r.ports, now, end});
      }
      units_[sg_.tasks[t].unit][unit]->start(t, duration_[t]);
      it = ready_.erase(it);
    }
  }

  const SchedGraph& sg_;
  bool contention_;
  EngineResult& result_;
  std::vector<std::int64_t> duration_;
  std::vector<std::vector<Reservation>> reservations_;
  std::vector<int> pending_;
  std::set<int> ready_;
  std::vector<int> completed_;
  int done_ = 0;
  std::array<std::vector<std::unique_ptr<KernelUnit>>, kUnitKinds> units_;
  std::array<std::priority_queue<int, std::vector<int>, std::greater<int>>, kUnitKinds> free_;
  std::vector<std::unique_ptr<BankPorts>> banks_;
  sc_event wake_;

  friend class KernelUnit;
};

void KernelUnit::finish() { scheduler_->completed(task_); }

/// Installs a fresh simulation context for the lifetime of the object and restores
/// the previous one afterwards.
class FreshContext {
 public:
  FreshContext() {
    static const bool quiet = [] { return setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0) == 0; }();
    (void)quiet;
    prev_curr_ = sc_core::sc_curr_simcontext;
    prev_default_ = sc_core::sc_default_global_context;
    ctx_ = new sc_core::sc_simcontext();
    sc_core::sc_curr_simcontext = ctx_;
    sc_core::sc_default_global_context = ctx_;
  }
  ~FreshContext() {
    delete ctx_;
    sc_core::sc_curr_simcontext = prev_curr_;
    sc_core::sc_default_global_context = prev_default_;
  }
  FreshContext(const FreshContext&) = delete;
  FreshContext& operator=(const FreshContext&) = delete;

 private:
  sc_core::sc_simcontext* ctx_;
  sc_core::sc_simcontext* prev_curr_;
  sc_core::sc_simcontext* prev_default_;
};

}  // namespace

EngineResult run_systemc(const SchedGraph& sg, const BankMap& banks,
                         const std::vector<std::vector<BankTraffic>>& traffic,
                         const EngineOptions& options) {
  if (!options.extra_cycles.empty() && options.extra_cycles.size() != sg.tasks.size()) {
    throw std::invalid_argument("run_systemc: extra_cycles must have one entry per task");
  }
  EngineResult result;
  int done = 0;
  {
    // SystemC's current simulation context is a process-wide global: concurrent runs
    // (the explorer's worker threads) would share and corrupt it, so runs are serialized.
    static std::mutex systemc_mutex;
    std::lock_guard<std::mutex> lock(systemc_mutex);
    FreshContext context;
    {
      Scheduler scheduler("scheduler", sg, banks, traffic, options, result);
      sc_core::sc_start();
      done = scheduler.done();
    }  // modules are destroyed while their context is current
  }
  if (done != static_cast<int>(sg.tasks.size())) {
    throw std::runtime_error("SystemC run ended with " + std::to_string(sg.tasks.size() - done) +
                             " of " + std::to_string(sg.tasks.size()) + " tasks not executed");
  }
  return result;
}

}  // namespace ttsim
