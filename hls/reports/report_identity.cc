#include "hls/reports/report_identity.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

namespace ttsim::hls {
namespace {

namespace fs = std::filesystem;

const char* kSuffix = "_csynth.xml";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string clock_text(const std::optional<double>& ns) { return ns ? fmt::format("{:.3f} ns", *ns) : "unknown"; }

}  // namespace

bool per_module_file_without_hierarchy(const CsynthReport& r) {
  const std::string name = fs::path(r.source).filename().string();
  return name == r.top + kSuffix && !r.hierarchy && r.modules.empty();
}

std::vector<std::string> identity_problems(const CsynthReport& r) {
  std::vector<std::string> out;
  const std::string name = fs::path(r.source).filename().string();
  if (ends_with(name, kSuffix) && name.size() > std::string(kSuffix).size()) {
    const std::string claimed = name.substr(0, name.size() - std::string(kSuffix).size());
    if (claimed != r.top) {
      out.push_back(fmt::format("file {} claims module {} but its TopModelName is {}", name, claimed, r.top));
    }
  }
  if (r.hierarchy && r.hierarchy->module_name != r.top) {
    out.push_back(fmt::format("RTLDesignHierarchy top module {} differs from TopModelName {}",
                              r.hierarchy->module_name, r.top));
  }
  if (!r.modules.empty() && !r.module(r.top)) {
    out.push_back(fmt::format("ModuleInformation lists {} modules, none named after TopModelName {}", r.modules.size(),
                              r.top));
  }
  if (r.part.empty()) out.push_back("Part is empty");
  if (!r.target_clock_ns) out.push_back("TargetClockPeriod is unknown");
  static const std::regex version(R"(\d{4}\.\d+(\.\d+)?)");
  if (!std::regex_match(r.tool_version, version)) {
    out.push_back(fmt::format("tool version \"{}\" is not of the form YYYY.N or YYYY.N.N", r.tool_version));
  }
  return out;
}

namespace {

/// Every module name `r` shows below its top: RTLDesignHierarchy descendants and
/// ModuleInformation entries.
void below_top(const InstanceNode& n, std::set<std::string>& out) {
  for (const auto& c : n.instances) {
    out.insert(c.module_name);
    below_top(c, out);
  }
}

std::set<std::string> modules_below(const CsynthReport& r) {
  std::set<std::string> out;
  if (r.hierarchy) below_top(*r.hierarchy, out);
  for (const auto& m : r.modules) out.insert(m.name);
  out.erase(r.top);
  return out;
}

/// The module whose loop `module` outlines ("<M>_Pipeline_<loop>", Vitis HLS 2021.1+), or "".
std::string outlining_module(const std::string& module) {
  const auto at = module.find("_Pipeline_");
  return at == std::string::npos || at == 0 ? "" : module.substr(0, at);
}

/// The module instantiating `module` in the hierarchy below `n`, or "".
std::string parent_in(const InstanceNode& n, const std::string& module) {
  for (const auto& c : n.instances) {
    if (c.module_name == module) return n.module_name;
    const std::string p = parent_in(c, module);
    if (!p.empty()) return p;
  }
  return "";
}

/// "" when `a` and `b` come from one build (same part, tool version and target clock),
/// else what differs: "part X (the design's report: Y)".
std::string build_difference(const CsynthReport& a, const CsynthReport& b) {
  if (a.part != b.part) return fmt::format("part {} (the design's report: {})", a.part, b.part);
  if (a.tool_version != b.tool_version) {
    return fmt::format("tool version {} (the design's report: {})", a.tool_version, b.tool_version);
  }
  const bool same_clock = a.target_clock_ns.has_value() == b.target_clock_ns.has_value() &&
                          (!a.target_clock_ns || std::fabs(*a.target_clock_ns - *b.target_clock_ns) < 1e-9);
  if (!same_clock) {
    return fmt::format("target clock {} (the design's report: {})", clock_text(a.target_clock_ns),
                       clock_text(b.target_clock_ns));
  }
  return "";
}

/// Files of one folder reporting one top, the primary ("csynth.xml", else the first) first.
struct TopFiles {
  std::string top;
  std::vector<std::size_t> files;
};

std::vector<TopFiles> by_top(const std::vector<CsynthReport>& reports, const std::vector<std::size_t>& folder) {
  std::map<std::string, std::vector<std::size_t>> tops;
  for (std::size_t i : folder) tops[reports[i].top].push_back(i);
  std::vector<TopFiles> out;
  for (auto& [top, files] : tops) {
    std::sort(files.begin(), files.end(), [&](std::size_t a, std::size_t b) { return reports[a].source < reports[b].source; });
    auto primary = std::find_if(files.begin(), files.end(), [&](std::size_t i) {
      return fs::path(reports[i].source).filename() == "csynth.xml";
    });
    if (primary != files.end()) std::rotate(files.begin(), primary, primary + 1);
    out.push_back({top, files});
  }
  return out;
}

}  // namespace

namespace {

/// For each top of `tops`: the index of the design it belongs under (its own index when it
/// is a design top): the outermost design whose hierarchy shows it below its top, or whose
/// top's loop it outlines by name ("<M>_Pipeline_<loop>" below M) when no hierarchy does.
std::vector<std::size_t> owners(const std::vector<CsynthReport>& reports, const std::vector<TopFiles>& tops) {
  const std::size_t n = tops.size();
  std::vector<std::set<std::string>> below(n);
  for (std::size_t t = 0; t < n; ++t) below[t] = modules_below(reports[tops[t].files.front()]);
  std::vector<std::size_t> owner(n);
  for (std::size_t t = 0; t < n; ++t) {
    owner[t] = t;
    for (std::size_t u = 0; u < n; ++u) {
      const bool shows = below[u].count(tops[t].top) > 0 || outlining_module(tops[t].top) == tops[u].top;
      if (u != t && shows && (owner[t] == t || below[u].size() > below[owner[t]].size())) owner[t] = u;
    }
  }
  std::vector<std::size_t> root(n);
  for (std::size_t t = 0; t < n; ++t) {
    std::size_t x = t;
    for (std::size_t k = 0; k <= n && owner[x] != x; ++k) x = owner[x];
    root[t] = owner[x] == x ? x : t;  // a cycle of designs showing each other: each its own
  }
  return root;
}

DesignGroup new_group(const std::vector<CsynthReport>& reports, const std::string& folder, std::size_t report) {
  DesignGroup g;
  g.folder = folder;
  g.top = reports[report].top;
  g.report = report;
  return g;
}

/// The designs of one folder's reports (indices `folder`), appended to `out`.
void group_folder(const std::vector<CsynthReport>& reports, const std::string& folder,
                  const std::vector<std::size_t>& files, std::vector<DesignGroup>& out) {
  const std::vector<TopFiles> tops = by_top(reports, files);
  const std::vector<std::size_t> root = owners(reports, tops);
  std::map<std::size_t, DesignGroup> designs;  // top index → its design
  std::vector<DesignGroup> separate;           // files not of their design's build
  auto note = [&](DesignGroup& g, std::size_t file, const std::string& what, const std::string& diff) {
    g.mismatches.push_back(fmt::format("{}: {} but reports {}: not of the same build", reports[file].source, what, diff));
    separate.push_back(new_group(reports, folder, file));
  };
  for (std::size_t t = 0; t < tops.size(); ++t) {
    if (root[t] == t) designs.emplace(t, new_group(reports, folder, tops[t].files.front()));
  }
  for (std::size_t t = 0; t < tops.size(); ++t) {
    DesignGroup& g = designs.at(root[t]);
    const CsynthReport& design = reports[g.report];
    for (std::size_t i : tops[t].files) {
      if (i == g.report) continue;
      const std::string diff = build_difference(reports[i], design);
      const bool same = root[t] == t;
      const std::string what = same ? "reports top " + g.top + " again" : "names module " + tops[t].top + " of design " + g.top;
      if (!diff.empty()) {
        note(g, i, what, diff);
      } else if (same) {
        g.same_top.push_back(i);
      } else {
        std::string parent = design.hierarchy ? parent_in(*design.hierarchy, tops[t].top) : "";
        g.modules.push_back({i, parent.empty() ? outlining_module(tops[t].top) : parent});
      }
    }
  }
  for (auto& [t, g] : designs) out.push_back(std::move(g));
  for (auto& g : separate) out.push_back(std::move(g));
}

}  // namespace

std::vector<DesignGroup> group_designs(const std::vector<CsynthReport>& reports) {
  std::map<std::string, std::vector<std::size_t>> folders;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    folders[fs::path(reports[i].source).parent_path().string()].push_back(i);
  }
  std::vector<DesignGroup> out;
  for (const auto& [folder, files] : folders) group_folder(reports, folder, files, out);
  auto path_of = [&](const DesignGroup& g) { return reports[g.report].source; };
  std::stable_sort(out.begin(), out.end(), [&](const DesignGroup& a, const DesignGroup& b) {
    return a.folder != b.folder ? a.folder < b.folder : path_of(a) < path_of(b);
  });
  for (auto& g : out) {
    std::sort(g.modules.begin(), g.modules.end(), [&](const auto& a, const auto& b) {
      return reports[a.report].source < reports[b.report].source;
    });
  }
  return out;
}

const DesignGroup* design_of(const std::vector<DesignGroup>& groups, std::size_t report) {
  for (const auto& g : groups) {
    if (g.report == report) return &g;
    if (std::find(g.same_top.begin(), g.same_top.end(), report) != g.same_top.end()) return &g;
    for (const auto& m : g.modules) {
      if (m.report == report) return &g;
    }
  }
  return nullptr;
}

}  // namespace ttsim::hls
