#include "hls/calibration/report_inventory.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/calibration/power_fit.h"
#include "hls/reports/report_checks.h"
#include "hls/reports/report_identity.h"

namespace ttsim::hls {
namespace {

namespace fs = std::filesystem;

std::string folder_of(const std::string& path) { return fs::path(path).parent_path().lexically_normal().string(); }

bool under(const std::string& path, const std::string& folder) {
  const std::string f = fs::path(folder).lexically_normal().string();
  const std::string p = fs::path(path).lexically_normal().string();
  return p.size() > f.size() && p.compare(0, f.size(), f) == 0 && (f.back() == '/' || p[f.size()] == '/');
}

std::string relative(const std::string& path, const std::string& root) {
  return under(path, root) ? fs::path(path).lexically_normal().lexically_relative(fs::path(root).lexically_normal()).string()
                           : path;
}

/// The refusal (or keeping) of `path` in `list`, or nullptr.
const ReportRefusal* refusal_of(const std::vector<ReportRefusal>& list, const std::string& path) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const ReportRefusal& x) { return x.source == path; });
  return it == list.end() ? nullptr : &*it;
}

/// Why the report_power at `power` cannot be tied to a ttsim design, or "" when it can:
/// walking up from its folder, stopping below `root` (sibling folders' builds are not its
/// design), the first folder whose tree holds csynth reports must hold exactly one build
/// (one folder of csynth reports), that build's reports must be of a ttsim design, and
/// none of them may be in `refused` (the screening rejected it and no --keep kept it).
std::string power_design_refusal(const std::string& power, const std::vector<CsynthReport>& csynth,
                                 const std::string& root, const std::vector<ReportRefusal>& refused) {
  const std::string hint = "; name it with `calibrate --power FILE` to fit it";
  for (std::string folder = folder_of(power); under(folder, root);
       folder = fs::path(folder).parent_path().string()) {
    std::map<std::string, std::vector<const CsynthReport*>> builds;  // folder of csynth reports → reports
    for (const auto& c : csynth) {
      if (under(c.source, folder)) builds[folder_of(c.source)].push_back(&c);
    }
    if (builds.empty()) continue;
    if (builds.size() > 1) {
      return fmt::format("{} holds {} builds (csynth reports in {} and {}…): cannot tell which design it measures{}",
                         folder, builds.size(), builds.begin()->first, std::next(builds.begin())->first, hint);
    }
    const auto& reports = builds.begin()->second;
    if (std::none_of(reports.begin(), reports.end(), [](auto* c) { return is_ttsim_report(*c); })) {
      return fmt::format("report_power of another design: the csynth report of its build, {} (top {}), is not of a "
                         "ttsim design; power is fitted only from the design of the latency reports{}",
                         reports.front()->source, reports.front()->top, hint);
    }
    for (const CsynthReport* c : reports) {
      if (const ReportRefusal* x = refusal_of(refused, c->source)) {
        return fmt::format("the {} of its build is rejected ({}); its power is not fitted unless that report is "
                           "kept with `--keep {}`",
                           fs::path(c->source).filename().string(), x->reason, c->source);
      }
    }
    return "";
  }
  return "no csynth report of its design in a folder between it and " + root + " (sibling folders' builds are not "
         "its design)" + hint;
}

/// Why the co-simulation report `cosim` gave no kernel sample: the csynth report of its
/// top (<top>_cosim.rpt beside it, or in ../../syn/report of a sim/report folder) is
/// missing, is not of a ttsim kernel module, already has a latency, or the report has no
/// passing run with a latency.
std::string cosim_unused_reason(const std::string& cosim, const std::vector<CsynthReport>& csynth) {
  const fs::path p = fs::path(cosim).lexically_normal();
  const std::string name = p.filename().string();
  const std::string suffix = "_cosim.rpt";
  const std::string top = name.size() > suffix.size() ? name.substr(0, name.size() - suffix.size()) : name;
  std::vector<fs::path> folders = {p.parent_path()};
  if (p.parent_path().filename() == "report" && p.parent_path().parent_path().filename() == "sim") {
    folders.push_back(p.parent_path().parent_path().parent_path() / "syn" / "report");
  }
  for (const auto& c : csynth) {
    if (c.top != top) continue;
    const fs::path folder = fs::path(c.source).parent_path().lexically_normal();
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) continue;
    if (!task_op_of_module(c.top)) {
      return fmt::format("co-simulation of {}, whose csynth top ({}) is not a ttsim kernel module", top, c.source);
    }
    if (c.latency_worst.known()) {
      return fmt::format("co-simulation of {}, whose csynth latency is known ({}): co-simulation is the ground "
                         "truth only where csynth prints undef",
                         top, c.source);
    }
    return "co-simulation of " + top + " with no passing run that reports a latency";
  }
  return "co-simulation of " + top + ", whose csynth report (top " + top + ") is not beside it nor in ../../syn/report";
}

}  // namespace

bool is_ttsim_report(const CsynthReport& r) { return holds_ttsim_module(r) && ttsim_identity_problems(r).empty(); }

PowerSelection select_power_reports(const ReportSet& set, const std::string& root,
                                    const std::vector<std::string>& explicit_power, const std::string& part,
                                    const std::vector<ReportRefusal>& refused) {
  PowerSelection out;
  out.pairs.utilization = set.utilization;
  const std::string top = fs::path(root).lexically_normal().string();
  for (const PowerReport& p : set.power) {
    std::string reason;
    // A rejected report_utilization beside it refuses it when it could be its pair: none
    // readable is left in the folder, or it is of the power report's file stem and no readable
    // one of that stem is (utilization_for pairs by stem first).
    const std::string stem = report_file_stem(p.source, "power");
    bool readable_beside = false, readable_of_stem = false;
    for (const UtilizationReport& u : set.utilization) {
      if (folder_of(u.source) != folder_of(p.source)) continue;
      readable_beside = true;
      readable_of_stem = readable_of_stem || report_file_stem(u.source, "utilization") == stem;
    }
    for (const auto& [path, why] : set.rejected) {
      if (classify_report_file(path) != ReportKind::kUtilizationRpt || folder_of(path) != folder_of(p.source)) continue;
      if (!readable_beside || (report_file_stem(path, "utilization") == stem && !readable_of_stem)) {
        reason = "the report_utilization beside it is rejected (" + why + ")";
      }
    }
    if (reason.empty() && !part.empty() && !p.device.empty() && p.device != part) {
      reason = "device " + p.device + " differs from the --device part " + part;
    }
    if (reason.empty()) reason = power_design_refusal(p.source, set.csynth, top, refused);
    if (!reason.empty()) {
      out.rejected.push_back({p.source, "rejected", reason});
      continue;
    }
    out.pairs.power.push_back(p);
  }
  for (const std::string& path : explicit_power) {
    std::error_code ec;
    auto same = [&](const std::string& other) { return fs::equivalent(other, path, ec); };
    out.rejected.erase(std::remove_if(out.rejected.begin(), out.rejected.end(),
                                      [&](const FileUse& f) { return same(f.path); }),
                       out.rejected.end());
    if (std::any_of(out.pairs.power.begin(), out.pairs.power.end(),
                    [&](const PowerReport& p) { return same(p.source); })) {
      continue;
    }
    if (!fs::is_regular_file(path, ec)) {
      throw InputError(path + ": --power: expected a report_power file (*power*.rpt), found " +
                       (fs::is_directory(path, ec) ? std::string("a folder")
                        : fs::exists(path, ec)     ? std::string("not a regular file")
                                                   : "no such file" + (ec ? " (" + ec.message() + ")" : std::string())));
    }
    if (classify_report_file(path) != ReportKind::kPowerRpt) {
      throw InputError(path + ": --power: expected a report_power file (*power*.rpt), found another file name");
    }
    out.pairs.power.push_back(read_power_rpt(path));
    const fs::path folder = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    // The folder's report_utilization files: the one of its stem alone when there is one
    // (utilization_for pairs that one), else every one.
    std::vector<std::string> beside;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
      const std::string f = e.path().string();
      if (e.is_regular_file() && classify_report_file(f) == ReportKind::kUtilizationRpt) beside.push_back(f);
    }
    if (ec) throw InputError(path + ": cannot list its folder: " + ec.message());
    std::sort(beside.begin(), beside.end());
    const std::string stem = report_file_stem(path, "power");
    if (std::count_if(beside.begin(), beside.end(),
                      [&](const std::string& f) { return report_file_stem(f, "utilization") == stem; }) == 1) {
      beside.erase(std::remove_if(beside.begin(), beside.end(),
                                  [&](const std::string& f) { return report_file_stem(f, "utilization") != stem; }),
                   beside.end());
    }
    for (const std::string& f : beside) {
      const bool known = std::any_of(out.pairs.utilization.begin(), out.pairs.utilization.end(),
                                     [&](const UtilizationReport& u) { return fs::equivalent(u.source, f, ec); });
      if (!known) out.pairs.utilization.push_back(read_utilization_rpt(f));
    }
  }
  return out;
}

namespace {

/// Why csynth report `r`, which gave no sample and skipped no module, gave none: a module
/// file of another file's design, a kernel counted from another report, or no kernel module.
std::string csynth_unused_reason(const CsynthReport& r, const DesignGroup* design, const std::vector<CsynthReport>& all) {
  std::string why = task_op_of_module(r.top) ? "kernel " + r.top + " already counted from another report of the same folder"
                                             : "no ttsim_<op> kernel module (top " + r.top + ")";
  if (design && all[design->report].source != r.source) {
    const std::string top_file = fs::path(all[design->report].source).filename().string();
    why += r.top == design->top ? fmt::format("; the same top as {} (one build)", top_file)
                                : fmt::format("; per-module file of design {} ({})", design->top, top_file);
  }
  return why;
}

/// How csynth report `r` (at `path`) was used: refused (or kept) by the screening, the
/// kernel samples taken from it, the modules skipped, or why none is a kernel; with a
/// timing violation noted.
void csynth_use(const std::string& path, const CsynthReport& r, const KernelSampleSet& samples,
                const DesignGroup* design, const std::vector<CsynthReport>& all, FileUse& u) {
  if (const ReportRefusal* x = refusal_of(samples.refused, path)) {
    u.status = "rejected";
    u.reason = x->reason + "; not fitted (`--keep " + path + "` uses it)";
    return;
  }
  std::vector<std::string> used;
  for (const auto& s : samples.samples) {
    if (s.source == path && std::find(used.begin(), used.end(), s.module) == used.end()) {
      used.push_back(s.module + (s.latency_source == "cosim" ? " (latency from co-simulation)" : ""));
    }
  }
  std::string skips;
  for (const auto& k : samples.skipped) {
    if (k.source == path) skips += fmt::format("{}{}: {}", skips.empty() ? "" : "; ", k.module, k.reason);
  }
  if (!used.empty()) {
    u.status = "used";
    u.reason = "kernel samples of ";
    for (std::size_t i = 0; i < used.size(); ++i) u.reason += (i ? ", " : "") + used[i];
    if (!skips.empty()) u.reason += "; skipped " + skips;
  } else if (!skips.empty()) {
    u.reason = "skipped " + skips;
  } else {
    u.reason = csynth_unused_reason(r, design, all);
  }
  if (const ReportRefusal* k = refusal_of(samples.kept, path)) u.reason += "; kept (--keep) despite: " + k->reason;
  if (auto v = timing_violation(r)) {
    u.reason += fmt::format("; timing not met: estimated clock {:.3f} ns above the {:.3f} ns target",
                            v->estimated_ns, v->target_ns);
  }
}

/// How co-simulation report `path` was used: the kernels whose latency it gave, or why none.
void cosim_use(const std::string& path, const ReportSet& set, const KernelSampleSet& samples, FileUse& u) {
  std::string modules;
  for (const auto& s : samples.samples) {
    if (s.cosim_report == path && modules.find(s.module) == std::string::npos) {
      modules += (modules.empty() ? "" : ", ") + s.module;
    }
  }
  if (!modules.empty()) {
    u.status = "used";
    u.reason = "co-simulation latency as ground truth (csynth latency undef) for " + modules;
  } else {
    u.reason = cosim_unused_reason(path, set.csynth);
  }
}

/// How report_power `path` was used: fitted, rejected (with the selection's reason), or
/// not read by a command that fits no power (`power` null).
void power_use(const std::string& path, const PowerSelection* power, FileUse& u) {
  if (!power) {
    u.reason = "this command fits no power";
    return;
  }
  const auto rej = std::find_if(power->rejected.begin(), power->rejected.end(),
                                [&](const FileUse& f) { return f.path == path; });
  if (rej != power->rejected.end()) {
    u = *rej;
  } else {
    u.status = "used";
    u.reason = "power fit";
  }
}

/// How utilization report `path` was used: with a selected report_power beside it, or not.
void utilization_use(const std::string& path, const PowerSelection* power, FileUse& u) {
  bool paired = false, beside = false;
  if (power) {
    for (const auto& p : power->pairs.power) {
      if (folder_of(p.source) != folder_of(path)) continue;
      beside = true;
      try {
        const UtilizationReport* pair = utilization_for(p, power->pairs.utilization);
        paired = paired || pair->source == path;
      } catch (const InputError&) {
        // No pair to name here: the power fit raises the error itself.
      }
    }
  }
  if (paired) {
    u.status = "used";
    u.reason = "resources of the power fit (report_power beside it)";
  } else {
    u.reason = !power   ? "this command fits no power"
               : beside ? "another report_utilization beside it is the selected report_power's (power_fit.h utilization_for)"
                        : "no selected report_power beside it";
  }
}

}  // namespace

std::vector<FileUse> report_inventory(const ReportSet& set, const KernelSampleSet& samples,
                                      const PowerSelection* power) {
  std::vector<FileUse> out;
  std::map<std::string, std::size_t> csynth;
  for (std::size_t i = 0; i < set.csynth.size(); ++i) csynth[set.csynth[i].source] = i;
  const std::vector<DesignGroup> designs = group_designs(set.csynth);
  for (const auto& [path, kind] : set.files) {
    FileUse u{path, "skipped", ""};
    const auto rejected = std::find_if(set.rejected.begin(), set.rejected.end(),
                                       [&](const auto& r) { return r.first == path; });
    if (rejected != set.rejected.end()) {
      out.push_back({path, "rejected", rejected->second});
      continue;
    }
    switch (kind) {
      case ReportKind::kCsynthXml:
        csynth_use(path, set.csynth[csynth.at(path)], samples, design_of(designs, csynth.at(path)), set.csynth, u);
        break;
      case ReportKind::kCosimRpt:
        cosim_use(path, set, samples, u);
        break;
      case ReportKind::kPowerRpt:
        power_use(path, power, u);
        break;
      case ReportKind::kUtilizationRpt:
        utilization_use(path, power, u);
        break;
      case ReportKind::kExportImplXml:
        u.reason = "post-route export report: not used for kernel latency or power";
        break;
      case ReportKind::kOther:
        u.status = "not read";
        u.reason = "not a report kind (*csynth.xml, export_impl.xml, *_cosim.rpt, *utilization*.rpt, *power*.rpt)";
        break;
    }
    out.push_back(u);
  }
  return out;
}

std::string format_inventory(const std::vector<FileUse>& files, const std::string& root) {
  std::map<std::string, int> n;
  for (const auto& f : files) ++n[f.status];
  std::string out = fmt::format("files under {}: {} used, {} skipped, {} rejected, {} not read\n", root, n["used"],
                                n["skipped"], n["rejected"], n["not read"]);
  for (const auto& f : files) out += fmt::format("  {:<8}  {}: {}\n", f.status, relative(f.path, root), f.reason);
  return out;
}

nlohmann::json inventory_json(const std::vector<FileUse>& files) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& f : files) j.push_back({{"path", f.path}, {"status", f.status}, {"reason", f.reason}});
  return j;
}

}  // namespace ttsim::hls
