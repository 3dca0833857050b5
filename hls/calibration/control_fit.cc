#include "hls/calibration/control_fit.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"
#include "hw/ff_estimate.h"
#include "hw/lut_estimate.h"

namespace ttsim::hls {

namespace {

namespace fs = std::filesystem;

/// Operator index (ttsim_spec::Opr) of a csynth OPTYPE with a LUT figure; -1 for integer
/// and memory operations (control), -2 for a floating-point or conversion operator the
/// table has no figure for.
int fp_operator(const std::string& op_type) {
  if (op_type == "fsub") return ttsim_spec::kFadd;
  for (int o = ttsim_spec::kFadd; o < ttsim_spec::kOprCount; ++o) {
    if (op_type == ttsim_spec::kOprNames[o]) return o;
  }
  static const std::set<std::string> unknown_fp = {
      "dadd", "dsub",   "dmul",   "ddiv",   "dsqrt",  "dexp",   "dlog",  "dcmp",   "drecip", "drsqrt",
      "hadd", "hsub",   "hmul",   "hdiv",   "hsqrt",  "hcmp",   "facc",  "fmacc",  "fmadd",  "dacc",
      "frecip", "frsqrt", "fpext", "fptrunc", "sitofp", "uitofp", "fptosi", "fptoui", "sitodp", "uitodp",
      "dptosi", "dptoui"};
  return unknown_fp.count(op_type) ? -2 : -1;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string design_of(const std::string& source, const std::string& root) {
  const fs::path rel = fs::path(source).lexically_relative(fs::path(root));
  if (rel.empty() || *rel.begin() == "..") return fs::path(source).parent_path().filename().string();
  auto it = rel.begin();
  const std::string first = it->string();
  return ++it == rel.end() ? std::string(".") : first;
}

}  // namespace

std::vector<LoopControlSample> loop_control_samples(const ReportSet& set, const std::string& root, int* left_out) {
  std::vector<LoopControlSample> out;
  std::set<std::pair<std::string, std::string>> seen;
  int skipped = 0;
  for (const CsynthReport& r : set.csynth) {
    const std::string design = design_of(r.source, root);
    for (const ModuleReport& m : r.modules) {
      if (m.name.find("_Pipeline_") == std::string::npos || !m.resources.lut) continue;
      if (!seen.insert({design, m.name}).second) continue;
      double operators = 0, operator_ffs = 0;
      bool unknown = false;
      for (const BindNode& b : m.bind_nodes) {
        if (b.bind_type != "op") continue;
        const int o = fp_operator(b.op_type);
        if (o == -2) unknown = true;
        if (o >= 0) {
          operators += operator_core_luts(o);
          operator_ffs += operator_core_ffs(o);
        }
      }
      if (unknown) {
        ++skipped;
        continue;
      }
      LoopControlSample s;
      s.design = design;
      s.module = m.name;
      s.tool_version = r.tool_version;
      s.part = r.part;
      s.luts = static_cast<double>(*m.resources.lut);
      s.operator_luts = operators;
      if (m.resources.ff) s.ffs = static_cast<double>(*m.resources.ff);
      s.operator_ffs = operator_ffs;
      out.push_back(std::move(s));
    }
  }
  if (left_out) *left_out = skipped;
  return out;
}

LoopControlFit fit_loop_control(const std::vector<LoopControlSample>& samples, int left_out, ControlMeasure measure) {
  const bool ffs = measure == ControlMeasure::kFfs;
  std::map<std::string, std::vector<const LoopControlSample*>> by_design;
  int used = 0;
  for (const LoopControlSample& s : samples) {
    if (ffs && s.ffs < 0) continue;
    by_design[s.design].push_back(&s);
    ++used;
  }
  if (used == 0) {
    throw InputError(std::string("control ") + (ffs ? "FF" : "LUT") +
                     " fit: no pipelined loop module with that figure in the reports");
  }
  LoopControlFit fit;
  fit.modules = used;
  fit.modules_left_out = left_out;
  std::vector<double> medians;
  for (const auto& [design, ss] : by_design) {
    std::vector<double> c;
    for (const LoopControlSample* s : ss) c.push_back(ffs ? s->control_ffs() : s->control());
    DesignControl d;
    d.design = design;
    d.tool_version = ss.front()->tool_version;
    d.part = ss.front()->part;
    d.modules = static_cast<int>(c.size());
    d.median = median_of(c);
    d.min = *std::min_element(c.begin(), c.end());
    d.max = *std::max_element(c.begin(), c.end());
    medians.push_back(d.median);
    fit.designs.push_back(std::move(d));
  }
  fit.median = median_of(medians);
  fit.low = *std::min_element(medians.begin(), medians.end());
  fit.high = *std::max_element(medians.begin(), medians.end());
  return fit;
}

}  // namespace ttsim::hls
