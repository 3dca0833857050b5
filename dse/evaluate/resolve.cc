#include "dse/evaluate/resolve.h"

#include <cctype>
#include <list>

#include "dse/space/axes.h"

namespace ttsim::dse {

namespace {

/// One document of a sweep's points as its axes set it: the model by the model axes, the
/// arch by the arch axes (AxisEditor::edits_arch; each axis edits one document and reads
/// nothing else), keyed by the sweep and those axes' indices.
struct ResolvedDoc {
  std::uint64_t sweep = 0;
  std::vector<int> key;  ///< the indices of the document's axes, in axis order
  std::shared_ptr<const Json> doc;
};

/// `base` with the values of the axes of `idx` that edit the arch (`arch` true) or the
/// model applied in axis order: from this thread's recent ones (kRecent per document) when
/// one has the same sweep and indices. Throws as AxisEditor::apply (the document is not
/// kept then).
std::shared_ptr<const Json> resolved_doc(const SweepSpec& sweep, const std::vector<int>& idx, bool arch) {
  constexpr std::size_t kRecent = 16;  // e.g. the arch of three lane counts × two lane modes × two flows
  thread_local std::list<ResolvedDoc> recent[2];  // [model, arch], most recent first
  std::list<ResolvedDoc>& list = recent[arch ? 1 : 0];
  thread_local std::vector<int> key;
  key.clear();
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (sweep.editors.at(i).edits_arch() == arch) key.push_back(idx[i]);
  }
  for (auto it = list.begin(); sweep.identity != 0 && it != list.end(); ++it) {  // 0: not a built sweep
    if (it->sweep == sweep.identity && it->key == key) {
      list.splice(list.begin(), list, it);
      return list.front().doc;
    }
  }
  Json doc = arch ? sweep.arch_doc : sweep.model_doc, untouched;  // the axes edited here leave the other alone
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] == kBaseValue || sweep.editors[i].edits_arch() != arch) continue;
    sweep.editors[i].apply(sweep.space.axes()[i].values[idx[i]], arch ? untouched : doc, arch ? doc : untouched);
  }
  list.push_front(ResolvedDoc{sweep.identity, key, std::make_shared<const Json>(std::move(doc))});
  if (list.size() > kRecent) list.pop_back();
  return list.front().doc;
}

}  // namespace

PointConfig resolve_point(const SweepSpec& sweep, PointId id) {
  PointConfig p;
  p.id = id;
  p.space = &sweep.space;
  p.model_file = sweep.model_file;
  p.arch_file = sweep.arch_file;
  const auto idx = sweep.space.decode(id);
  p.model_doc = resolved_doc(sweep, idx, false);
  p.arch_doc = resolved_doc(sweep, idx, true);
  return p;
}

namespace {

std::string axis_token(const std::string& axis, const Json& v) {
  const std::string t = value_text(v);
  auto starts = [&](const char* p) { return axis.rfind(p, 0) == 0; };
  if (axis == "tt_rank") return "r" + t;
  if (starts("tt_rank.")) return axis.substr(8) + "_r" + t;
  if (axis == "ttm_rank") return "ttm_r" + t;
  if (starts("flow.")) return axis.substr(5) + "_" + t;
  if (axis == "engines" || axis == "lanes") return t + axis;
  if (starts("engines.")) return t + axis.substr(8) + "_engines";
  if (axis == "nonlinear_lanes") return t + "nonlinear_lanes";
  if (starts("lanes.")) return t + axis.substr(6) + "_lanes";
  if (axis == "clock_mhz") return t + "mhz";
  // One contraction lane per bank is the default layout: no token.
  if (axis == "lanes_per_bank") return t == "1" ? "" : "dual_port_lanes";
  if (axis == "sequence_length") return t + "_length";
  if (axis == "recompute") {
    if (t == "none") return "all_kept";
    if (t == "btt_merges") return "merges_recomputed";
    return t == "encoders" ? "encoders_recomputed" : "encoders_merges_recomputed";
  }
  if (axis == "parallel_merges" || axis == "qkv_reschedule" || axis == "fusion") {
    return v.is_boolean() && v.get<bool>() ? axis : "no_" + axis;
  }
  if (starts("model:") || starts("arch:")) {
    const std::string ptr = axis.substr(axis.find(':') + 1);
    return ptr.substr(ptr.rfind('/') + 1) + "_" + t;
  }
  return t;  // flow, policy, memory_strategy
}

}  // namespace

std::string point_name(const SweepSpec& sweep, PointId id) { return point_name(sweep, id, resolve_point(sweep, id)); }

std::string point_name(const SweepSpec& sweep, PointId id, const PointConfig& p) {
  std::vector<Json> values;
  for (const AxisEditor& a : sweep.editors) values.push_back(a.current(p.model(), p.arch()));
  return point_name(sweep, id, values);
}

std::string point_name(const SweepSpec& sweep, PointId id, const std::vector<Json>& values) {
  std::string name = sweep.model_doc.value("name", std::string("model"));
  const auto idx = sweep.space.decode(id);
  for (std::size_t i = 0; i < idx.size(); ++i) {
    const Axis& a = sweep.space.axes()[i];
    const Json& v = values.at(i);
    if (idx[i] == kBaseValue || v.is_null()) continue;
    if (a.name == "encoders") {
      if (v == sweep.model_doc.value("encoders", Json(nullptr))) continue;
      const std::string base = value_text(sweep.model_doc.value("encoders", Json(nullptr))) + "enc";
      const auto at = name.find(base);
      if (at != std::string::npos) {
        name.replace(at, base.size(), value_text(v) + "enc");
        continue;
      }
      name += "-" + value_text(v) + "enc";
      continue;
    }
    // A single-valued axis names the point where its value is not the base documents'
    // (SweepSpec::base_values, computed at load; here for a sweep built otherwise).
    const auto differs_from_base = [&] {
      return i < sweep.base_values.size() ? v != sweep.base_values[i]
                                          : v != sweep.editors.at(i).current(sweep.model_doc, sweep.arch_doc);
    };
    if (a.values.size() > 1 || differs_from_base()) {
      const std::string token = axis_token(a.name, v);
      if (!token.empty()) name += "-" + token;
    }
  }
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.' && ch != '-') ch = '_';
  }
  return name;
}

}  // namespace ttsim::dse
