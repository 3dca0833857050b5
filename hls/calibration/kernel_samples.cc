#include "hls/calibration/kernel_samples.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "hw/loop_nest.h"
#include "hls/reports/report_checks.h"
#include "hls/reports/report_consistency.h"
#include "hls/reports/report_identity.h"

namespace ttsim::hls {
namespace {

constexpr TaskOp kTaskOps[] = {TaskOp::kContraction, TaskOp::kSoftmax,   TaskOp::kSoftmaxGrad,
                               TaskOp::kLayerNorm,   TaskOp::kLayerNormGrad, TaskOp::kGelu,
                               TaskOp::kGeluGrad,    TaskOp::kAdd,       TaskOp::kLoss,
                               TaskOp::kSgdUpdate};

const char* kPipelineInfix = "_Pipeline_";

void pipelined_loops(const std::vector<LoopReport>& loops, const std::string& rtl_module,
                     std::vector<std::pair<const LoopReport*, std::string>>& out) {
  for (const auto& l : loops) {
    if (l.pipelined()) out.emplace_back(&l, rtl_module);
    pipelined_loops(l.loops, rtl_module, out);
  }
}

const InstanceNode* find_node(const InstanceNode& n, const std::string& module) {
  if (n.module_name == module) return &n;
  for (const auto& c : n.instances) {
    if (const InstanceNode* f = find_node(c, module)) return f;
  }
  return nullptr;
}

// Callee modules "<module>_Pipeline_*" anywhere below the node (outlined loops of nested
// regions are callees of callees).
void pipeline_callees(const InstanceNode& n, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& c : n.instances) {
    if (c.module_name.rfind(prefix, 0) == 0 &&
        std::find(out.begin(), out.end(), c.module_name) == out.end()) {
      out.push_back(c.module_name);
    }
    pipeline_callees(c, prefix, out);
  }
}

std::string folder_of(const std::string& path) { return std::filesystem::path(path).parent_path().string(); }

}  // namespace

std::optional<TaskOp> task_op_of_module(const std::string& module) {
  const std::string prefix = "ttsim_";
  if (module.rfind(prefix, 0) != 0 || module.find(kPipelineInfix) != std::string::npos) return std::nullopt;
  const std::string rest = module.substr(prefix.size());
  std::optional<TaskOp> best;
  std::size_t best_len = 0;
  for (TaskOp op : kTaskOps) {
    const std::string name = to_string(op);
    const bool match = rest == name || (rest.size() > name.size() + 1 && rest.rfind(name + "_", 0) == 0);
    if (match && name.size() > best_len) {
      best = op;
      best_len = name.size();
    }
  }
  if (best) return best;
  // A module named after one loop of a kernel (ttsim_<loop>, e.g. ttsim_column_sum): that
  // kernel's single-variant module.
  for (TaskOp op : kTaskOps) {
    for (const LoopSpec& l : all_kernel_loops(op, 1)) {
      if (rest == l.name) return op;
    }
  }
  return std::nullopt;
}

bool holds_ttsim_module(const CsynthReport& r) {
  if (r.top.rfind("ttsim_", 0) == 0) return true;
  return std::any_of(r.modules.begin(), r.modules.end(),
                     [](const ModuleReport& m) { return m.name.rfind("ttsim_", 0) == 0; });
}

std::vector<std::string> ttsim_identity_problems(const CsynthReport& r) {
  if (!holds_ttsim_module(r)) return {};
  const std::string& top = r.top;
  if (top.rfind("ttsim_", 0) != 0) {
    std::string held;
    for (const auto& m : r.modules) {
      if (m.name.rfind("ttsim_", 0) == 0 && m.name.find(kPipelineInfix) == std::string::npos) {
        held += (held.empty() ? "" : ", ") + m.name;
      }
    }
    return {"report of another design: its top " + top + " is not a ttsim module (" + kTtsimDesignTop +
            " or a ttsim_<op> kernel, hls/kernels/modules.h), yet it holds ttsim modules (" +
            (held.empty() ? "outlined loops only" : held) + ")"};
  }
  const auto pipe = top.find(kPipelineInfix);
  const std::string owner = pipe == std::string::npos ? top : top.substr(0, pipe);
  if (owner != kTtsimDesignTop && !task_op_of_module(owner)) {
    return {"its top " + top + " claims to be a ttsim module, but no ttsim kernel module (ttsim_<op>, "
            "hls/kernels/modules.h) nor " + kTtsimDesignTop + " is named " + owner};
  }
  return {};
}

std::vector<std::int64_t> KernelSample::trips() const {
  std::vector<std::int64_t> t;
  for (const LoopSpec& sp : all_kernel_loops(op, 1)) {
    std::int64_t trip = 0;
    for (const auto& l : loops) {
      if (l.name == sp.name) trip = l.trip;
    }
    t.push_back(trip);
  }
  return t;
}

namespace {

/// Pipelined loops found in a report, each with the RTL module that holds it.
using FoundLoops = std::vector<std::pair<const LoopReport*, std::string>>;

/// The module names of a report: its modules, or its top when it lists none.
std::vector<std::string> module_names(const CsynthReport& r) {
  std::vector<std::string> names;
  for (const auto& m : r.modules) names.push_back(m.name);
  if (r.modules.empty()) names.push_back(r.top);
  return names;
}

/// Notes `name` among the non-kernel modules (outlined loops and repeats left out).
void note_unmapped(KernelSampleSet& set, const std::string& name) {
  if (name.find(kPipelineInfix) == std::string::npos &&
      std::find(set.unmapped.begin(), set.unmapped.end(), name) == set.unmapped.end()) {
    set.unmapped.push_back(name);
  }
}

/// The sample of kernel module `name` of `r` (module `m`, or the report's figures without
/// one) before its loops: latency (from co-simulation when csynth's is undef at the top),
/// resources, tool and clocks.
KernelSample base_sample(const CsynthReport& r, const std::string& name, TaskOp op, const ModuleReport* m,
                         const std::vector<CosimReport>& cosim) {
  KernelSample s;
  s.source = r.source;
  s.module = name;
  s.op = op;
  s.latency_best = m ? m->latency_best : r.latency_best;
  s.latency_worst = m ? m->latency_worst : r.latency_worst;
  s.resources = m ? m->resources : r.resources;
  s.tool_version = r.tool_version;
  s.part = r.part;
  s.target_clock_ns = m && m->target_clock_ns ? m->target_clock_ns : r.target_clock_ns;
  // The slower of the module's and the report's estimate (the report's covers the top).
  s.estimated_clock_ns = m && m->estimated_clock_ns ? m->estimated_clock_ns : r.estimated_clock_ns;
  if (name == r.top && r.estimated_clock_ns && (!s.estimated_clock_ns || *r.estimated_clock_ns > *s.estimated_clock_ns)) {
    s.estimated_clock_ns = r.estimated_clock_ns;
  }
  if ((!s.latency_best.known() || !s.latency_worst.known()) && name == r.top) {
    if (const auto c = cosim_latency_for(r, cosim)) {
      s.latency_best = Count::exact(*c->latency.min);
      s.latency_worst = Count::exact(*c->latency.max);
      s.latency_source = "cosim";
      s.cosim_report = c->source;
    }
  }
  return s;
}

/// The outlined "<name>_Pipeline_*" callees of module `name`: through the report's
/// hierarchy, or by name among its modules without one.
std::vector<std::string> pipeline_callees_of(const CsynthReport& r, const std::string& name) {
  std::vector<std::string> callees;
  const std::string prefix = name + kPipelineInfix;
  const InstanceNode* node = r.hierarchy ? find_node(*r.hierarchy, name) : nullptr;
  if (node) {
    pipeline_callees(*node, prefix, callees);
  } else {
    for (const auto& cm : r.modules) {
      if (cm.name.rfind(prefix, 0) == 0) callees.push_back(cm.name);
    }
  }
  return callees;
}

/// Appends the operator BindNodes of `mod` (if any) to s.op_binds.
void add_op_binds(KernelSample& s, const ModuleReport* mod) {
  if (!mod) return;
  for (const auto& b : mod->bind_nodes) {
    if (b.bind_type == "op") s.op_binds.push_back(b);
  }
}

/// Gathers the kernel's pipelined loops into `found` and its operator binds into `s`:
/// its own (module `m`, or the report's loops) and its outlined _Pipeline_ callees'.
/// Returns the first callee with no ModuleInformation entry, "" when there is none.
std::string gather_kernel_loops(const CsynthReport& r, const std::string& name, const ModuleReport* m,
                                KernelSample& s, FoundLoops& found) {
  pipelined_loops(m ? m->loops : r.loops, name, found);
  const std::vector<std::string> callees = pipeline_callees_of(r, name);
  add_op_binds(s, m);
  for (const auto& c : callees) {
    const ModuleReport* cm = r.module(c);
    if (!cm) return c;
    pipelined_loops(cm->loops, c, found);
    add_op_binds(s, cm);
  }
  return "";
}

/// True for a pipeline style the kernel samples model: "yes", "no", "none", or not
/// reported (empty, 2020.x and before).
bool modelled_style(const std::string& type) { return type.empty() || type == "yes" || type == "no" || type == "none"; }

/// "loop L (in M): pipeline style frp not modelled ..." for the first loop of `loops` (nested
/// loops included) whose PipelineType is not modelled (modelled_style), "" when none.
std::string unmodelled_loop_style(const std::vector<LoopReport>& loops, const std::string& module) {
  for (const auto& l : loops) {
    if (!modelled_style(l.pipeline_type)) {
      return fmt::format("loop {} (in {}): pipeline style {} not modelled (modelled: yes, no, none)", l.name, module,
                         l.pipeline_type);
    }
    const std::string inner = unmodelled_loop_style(l.loops, module);
    if (!inner.empty()) return inner;
  }
  return "";
}

/// Why kernel module `name` of `r` (module `m`, or the report's figures without one) has a
/// pipeline style the samples do not model (frp, flp, dataflow, ...): the module's, one of
/// its loops' or one of its outlined _Pipeline_ callees' (or their loops'); "" when none.
std::string unmodelled_pipeline_style(const CsynthReport& r, const std::string& name, const ModuleReport* m) {
  const std::string own = m ? m->pipeline_type : r.pipeline_type;
  if (!modelled_style(own)) return fmt::format("module {}: pipeline style {} not modelled (modelled: yes, no, none)", name, own);
  std::string why = unmodelled_loop_style(m ? m->loops : r.loops, name);
  for (const auto& c : pipeline_callees_of(r, name)) {
    const ModuleReport* cm = r.module(c);
    if (!why.empty() || !cm) continue;
    why = modelled_style(cm->pipeline_type)
              ? unmodelled_loop_style(cm->loops, c)
              : fmt::format("module {}: pipeline style {} not modelled (modelled: yes, no, none)", c, cm->pipeline_type);
  }
  return why;
}

/// Matches the loops `found` to the kernel's loops by label, into `ordered` (specification
/// order): every pipelined loop must be a loop of the kernel's specification (any
/// variant); the loops that run for every variant must all be there; a variant loop may
/// be absent (a module of one variant, e.g. ttsim_add_accumulate holds only
/// add_accumulate). Returns why they do not match, "" when they do.
std::string match_kernel_loops(TaskOp op, const FoundLoops& found, FoundLoops& ordered) {
  const std::vector<LoopSpec> specs = all_kernel_loops(op, 1);
  std::string problem, seen_names;
  for (const auto& [l, mod] : found) {
    seen_names += (seen_names.empty() ? "" : ", ") + l->name;
    if (std::none_of(specs.begin(), specs.end(), [&](const LoopSpec& sp) { return sp.name == l->name; })) {
      problem = "pipelined loop " + l->name + " (in " + mod + ") is not a loop of the " + to_string(op) +
                " kernel (hls/include/kernel_spec.h)";
    }
  }
  for (const LoopSpec& sp : specs) {
    auto it = std::find_if(found.begin(), found.end(), [&](auto& f) { return f.first->name == sp.name; });
    if (it == found.end()) {
      if (problem.empty() && sp.spec->variant < 0) {
        problem = "loop " + sp.name + " of the " + std::string(to_string(op)) +
                  " kernel not found among its pipelined loops (" + (seen_names.empty() ? "none" : seen_names) + ")";
      }
      continue;
    }
    ordered.push_back(*it);
  }
  if (problem.empty() && ordered.empty()) {
    problem = std::string("no pipelined loop of the ") + to_string(op) + " kernel (" +
              (seen_names.empty() ? "none found" : "found: " + seen_names) + ")";
  }
  return problem;
}

/// Adds the samples of `s` with its `ordered` loops to `out`: the worst case, and the
/// best case too unless every figure is exact.
void add_bound_samples(const KernelSample& s, const FoundLoops& ordered, bool exact,
                       std::vector<KernelSample>& out) {
  for (const char* bound : {"worst", "best"}) {
    const bool worst = std::string(bound) == "worst";
    if (exact && !worst) break;
    KernelSample b = s;
    b.bound = bound;
    b.latency = worst ? *s.latency_worst.max : *s.latency_best.min;
    for (const auto& [l, mod] : ordered) {
      LoopObservation o;
      o.name = l->name;
      o.rtl_module = mod;
      o.trip = worst ? *l->trip_count.max : *l->trip_count.min;
      o.latency = worst ? *l->latency.max : *l->latency.min;
      o.ii = *l->pipeline_ii->min;  // exact: unknown_ii_or_depth skipped the sample otherwise
      if (l->pipeline_depth) o.depth = *l->pipeline_depth->min;
      b.loops.push_back(o);
    }
    out.push_back(std::move(b));
  }
}

/// " (<module>: <field> = <text>, …)": the values of module `name` and of the modules
/// holding its loops `found` that `r` printed as unknown (the first three), "" when none.
std::string unknowns_of(const CsynthReport& r, const std::string& name, const FoundLoops& found) {
  std::set<std::string> modules = {name};
  for (const auto& [l, mod] : found) modules.insert(mod);
  std::vector<std::string> listed;
  std::set<std::string> seen;  // the top's summary repeats its ModuleInformation entry
  std::size_t n = 0;
  for (const auto& u : r.unknowns) {
    const std::string line = u.module + ": " + u.field + " = " + u.text;
    if (!modules.count(u.module) || !seen.insert(line).second) continue;
    if (++n <= 3) listed.push_back(line);
  }
  if (listed.empty()) return "";
  std::string s = " (";
  for (std::size_t i = 0; i < listed.size(); ++i) s += (i ? ", " : "") + listed[i];
  return s + (n > listed.size() ? fmt::format(", {} more)", n - listed.size()) : ")");
}

/// "loop L (in M): PipelineII is 1 ~ ?, not one number; ...": the loops of `ordered` whose
/// PipelineII, or PipelineDepth where the report prints one, is not one known number (the
/// fit would have to guess it); "" when every one is.
std::string unknown_ii_or_depth(const FoundLoops& ordered) {
  std::string s;
  auto note = [&](const LoopReport& l, const std::string& mod, const char* field, const Count& c) {
    if (c.is_exact()) return;
    s += (s.empty() ? "" : "; ") + fmt::format("loop {} (in {}): {} is {}, not one number", l.name, mod, field, c.str());
  };
  for (const auto& [l, mod] : ordered) {
    note(*l, mod, "PipelineII", l->pipeline_ii ? *l->pipeline_ii : Count::unknown());
    if (l->pipeline_depth) note(*l, mod, "PipelineDepth", *l->pipeline_depth);
  }
  return s;
}

/// Samples kernel module `name` (of TaskOp `op`) of report `r` into `set` (or its skip).
void collect_module_samples(const CsynthReport& r, const std::string& name, TaskOp op,
                            const std::vector<CosimReport>& cosim, KernelSampleSet& set) {
  auto skip = [&](const std::string& why) { set.skipped.push_back({r.source, name, why}); };
  const ModuleReport* m = r.module(name);
  KernelSample s = base_sample(r, name, op, m, cosim);
  FoundLoops found;
  const std::string missing_callee = gather_kernel_loops(r, name, m, s, found);
  if (!missing_callee.empty()) {
    skip("callee " + missing_callee + " has no ModuleInformation entry");
    return;
  }
  if (const std::string style = unmodelled_pipeline_style(r, name, m); !style.empty()) {
    skip(style);
    return;
  }
  FoundLoops ordered;
  const std::string problem = match_kernel_loops(op, found, ordered);
  if (!problem.empty()) {
    skip(problem);
    return;
  }
  bool known = s.latency_best.known() && s.latency_worst.known();
  bool exact = s.latency_best.is_exact() && s.latency_worst.is_exact() && *s.latency_best.min == *s.latency_worst.max;
  for (const auto& [l, mod] : ordered) {
    known = known && l->trip_count.known() && l->latency.known();
    exact = exact && l->trip_count.is_exact() && l->latency.is_exact();
  }
  if (!known) {
    skip(std::string("latency or a loop's trip count / latency is unknown") + unknowns_of(r, name, found) +
         (s.latency_source == "cosim" ? " (module latency from co-simulation " + s.cosim_report + ")" : ""));
    return;
  }
  const std::string unknown_timing = unknown_ii_or_depth(ordered);
  if (!unknown_timing.empty()) {
    skip("a loop's II or depth is unknown, not guessed: " + unknown_timing + unknowns_of(r, name, found));
    return;
  }
  add_bound_samples(s, ordered, exact, set.samples);
}

}  // namespace

namespace {

/// The part and target clock of `r` against those `options` ask for, each difference a
/// sentence with both values (empty when they agree or nothing is asked).
std::vector<std::string> part_and_clock_problems(const CsynthReport& r, const SampleOptions& options) {
  std::vector<std::string> out;
  if (!options.part.empty() && r.part != options.part) {
    out.push_back("report part " + (r.part.empty() ? std::string("(none)") : r.part) + " differs from " +
                  options.part_from + " part " + options.part);
  }
  if (options.clock_ns && r.target_clock_ns && std::fabs(*r.target_clock_ns - *options.clock_ns) > 0.01) {
    out.push_back(fmt::format("report target clock {:.3f} ns differs from {} clock {:.3f} ns", *r.target_clock_ns,
                              options.clock_from, *options.clock_ns));
  }
  return out;
}

/// Every problem of report `r` (which holds ttsim modules) that keeps it out of the
/// samples: ttsim and report identity, contradictions, another part or clock than
/// `options` ask for; "" when none.
std::string screening_problems(const CsynthReport& r, const SampleOptions& options) {
  std::vector<std::string> all = ttsim_identity_problems(r);
  for (const auto& p : part_and_clock_problems(r, options)) all.push_back(p);
  for (const auto& p : identity_problems(r)) all.push_back(p);
  for (const auto& c : contradictions(r)) all.push_back("contradicts itself: " + c.module + ": " + c.what);
  std::string s;
  for (const auto& p : all) s += (s.empty() ? "" : "; ") + p;
  return s;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return std::filesystem::path(a).lexically_normal() == std::filesystem::path(b).lexically_normal();
}

/// True when `r` passes the screening, or is kept (noted in `set.kept`); else noted in `set.refused`.
bool screen(const CsynthReport& r, const SampleOptions& options, KernelSampleSet& set) {
  if (!holds_ttsim_module(r)) return true;
  const std::string problems = screening_problems(r, options);
  if (problems.empty()) return true;
  for (const std::string& k : options.keep) {
    if (same_file(k, r.source)) {
      set.kept.push_back({r.source, problems});
      return true;
    }
  }
  set.refused.push_back({r.source, problems});
  return false;
}

}  // namespace

KernelSampleSet collect_kernel_samples(const std::vector<CsynthReport>& reports,
                                       const std::vector<CosimReport>& cosim, const SampleOptions& options) {
  KernelSampleSet set;
  std::set<std::pair<std::string, std::string>> seen;  // (folder, module)
  std::vector<const CsynthReport*> sorted;
  for (const auto& r : reports) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->source < b->source; });
  for (const CsynthReport* rp : sorted) {
    const CsynthReport& r = *rp;
    if (!screen(r, options, set)) continue;
    const std::size_t first = set.samples.size();
    for (const std::string& name : module_names(r)) {
      const auto op = task_op_of_module(name);
      if (!op) {
        note_unmapped(set, name);
        continue;
      }
      if (!seen.insert({folder_of(r.source), name}).second) continue;
      collect_module_samples(r, name, *op, cosim, set);
    }
    const bool kept = !set.kept.empty() && set.kept.back().source == r.source;
    for (std::size_t i = first; i < set.samples.size(); ++i) set.samples[i].kept = kept;
  }
  for (const std::string& k : options.keep) {
    const bool read = std::any_of(reports.begin(), reports.end(), [&](const CsynthReport& r) {
      return same_file(k, r.source);
    });
    if (!read) throw InputError("--keep " + k + ": not one of the csynth reports read (expected a *csynth.xml under --reports)");
  }
  return set;
}

}  // namespace ttsim::hls
