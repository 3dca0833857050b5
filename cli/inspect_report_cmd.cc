// `ttsim inspect-report PATH [--json OUT] [--modules]`: prints what the HLS / Vivado
// report readers (hls/reports) read from one report file or every report in a folder.

#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "hls/reports/report_checks.h"
#include "hls/reports/report_consistency.h"
#include "hls/reports/report_identity.h"
#include "hls/reports/report_json.h"
#include "hls/reports/report_set.h"

namespace ttsim::cli {
namespace {

using namespace ttsim::hls;

std::string opt_num(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }
std::string opt_ns(const std::optional<double>& v) { return v ? fmt::format("{:.3f} ns", *v) : "undef"; }

std::string resources_line(const Resources& used, const Resources& avail) {
  auto one = [](const char* n, const std::optional<std::int64_t>& u, const std::optional<std::int64_t>& a) {
    return a ? fmt::format("{} {}/{}", n, opt_num(u), *a) : fmt::format("{} {}", n, opt_num(u));
  };
  return one("BRAM_18K", used.bram_18k, avail.bram_18k) + "  " + one("DSP", used.dsp, avail.dsp) +
         "  " + one("FF", used.ff, avail.ff) + "  " + one("LUT", used.lut, avail.lut) + "  " +
         one("URAM", used.uram, avail.uram);
}

void print_loops(const std::vector<LoopReport>& loops, int indent) {
  for (const auto& l : loops) {
    std::string shape;
    if (l.pipelined()) {
      shape = fmt::format("II {} depth {}", l.pipeline_ii->str(),
                          l.pipeline_depth ? l.pipeline_depth->str() : "-");
    } else if (l.iteration_latency) {
      shape = "iteration " + l.iteration_latency->str();
    }
    std::cout << fmt::format("{}{:<{}} trip {:>12}  latency {:>16}  {}\n", std::string(indent, ' '),
                             l.name, std::max(1, 44 - indent), l.trip_count.str(), l.latency.str(),
                             shape);
    print_loops(l.loops, indent + 2);
  }
}

void print_csynth(const CsynthReport& r, bool modules) {
  std::cout << fmt::format("csynth       {}\n", r.source);
  std::cout << fmt::format("  tool {}  part {}  top {}{}\n", r.tool_version, r.part, r.top,
                           r.flow_target.empty() ? "" : "  flow " + r.flow_target);
  std::cout << fmt::format("  clock target {}  estimated {}\n", opt_ns(r.target_clock_ns),
                           opt_ns(r.estimated_clock_ns));
  if (auto v = timing_violation(r)) std::cout << "  warning: " << v->message() << "\n";
  std::cout << fmt::format("  latency best {}  worst {}  interval {} .. {} cycles\n",
                           r.latency_best.str(), r.latency_worst.str(), r.interval_min.str(),
                           r.interval_max.str());
  std::cout << "  resources " << resources_line(r.resources, r.available) << "\n";
  if (!r.loops.empty()) {
    std::cout << "  loops:\n";
    print_loops(r.loops, 4);
  }
  if (!r.modules.empty()) {
    std::size_t binds = 0;
    for (const auto& m : r.modules) binds += m.bind_nodes.size();
    std::cout << fmt::format("  modules: {} (ModuleInformation), {} BindNodes{}\n", r.modules.size(),
                             binds, modules ? "" : "  [--modules lists them]");
  }
  if (!modules) return;
  for (const auto& m : r.modules) {
    std::cout << fmt::format("    module {:<56} latency {} .. {}  II {}  {}\n", m.name,
                             m.latency_best.str(), m.latency_worst.str(), m.interval.str(),
                             m.pipeline_type);
    print_loops(m.loops, 8);
  }
}

/// The last component of `path`.
std::string file_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

/// Unknown values listed per report before "… N more".
constexpr std::size_t kUnknownsListed = 8;

/// The checks of one csynth report, indented by `indent`: the values read as unknown
/// (counted by kind, the first kUnknownsListed listed; --json lists every one), what its
/// identity gets wrong and what it contradicts.
void print_checks(const CsynthReport& r, int indent) {
  const std::string pad(indent, ' ');
  if (!r.unknowns.empty()) {
    std::map<std::string, int> kinds;
    std::set<std::string> modules;
    for (const auto& u : r.unknowns) {
      ++kinds[u.kind()];
      modules.insert(u.module);
    }
    std::string by_kind;
    for (const auto& [k, n] : kinds) by_kind += fmt::format("{}{} {}", by_kind.empty() ? "" : ", ", n, k);
    std::cout << fmt::format("{}unknown values: {} in {} module{} ({}), read as unknown:\n", pad, r.unknowns.size(),
                             modules.size(), modules.size() == 1 ? "" : "s", by_kind);
    for (std::size_t i = 0; i < r.unknowns.size() && i < kUnknownsListed; ++i) {
      const auto& u = r.unknowns[i];
      std::cout << fmt::format("{}  {}: {} = {}\n", pad, u.module, u.field, u.text);
    }
    if (r.unknowns.size() > kUnknownsListed) {
      std::cout << fmt::format("{}  … {} more (--json lists every one)\n", pad, r.unknowns.size() - kUnknownsListed);
    }
  }
  for (const auto& p : identity_problems(r)) std::cout << pad << "identity: " << p << "\n";
  for (const auto& c : contradictions(r)) std::cout << pad << "contradicts itself: " << c.module << ": " << c.what << "\n";
}

/// The other files of design `g`: its top's own per-module file(s) and the per-module files
/// of its modules, each with its checks; then the files not grouped with it and why.
void print_design_files(const std::vector<CsynthReport>& csynth, const DesignGroup& g) {
  const std::size_t n = g.same_top.size() + g.modules.size();
  if (n > 0) std::cout << fmt::format("  files of the same build: {}\n", n);
  for (std::size_t i : g.same_top) {
    const CsynthReport& r = csynth[i];
    std::cout << fmt::format("    {}  top {} again  latency {} .. {}\n", file_name(r.source), r.top, r.latency_best.str(),
                             r.latency_worst.str());
    print_checks(r, 6);
  }
  for (const auto& m : g.modules) {
    const CsynthReport& r = csynth[m.report];
    std::cout << fmt::format("    {}  module {} of {}{}  latency {} .. {}  interval {} .. {}\n", file_name(r.source), r.top, g.top,
                             m.parent.empty() || m.parent == g.top ? "" : " (called by " + m.parent + ")",
                             r.latency_best.str(), r.latency_worst.str(), r.interval_min.str(), r.interval_max.str());
    print_checks(r, 6);
  }
  for (const auto& x : g.mismatches) std::cout << "  not grouped: " << x << "\n";
}

/// "N csynth files, D designs[, P files not placed under a top]: M modules read, U unknown
/// values, I identity problems, C contradictions". A group of `designs` whose top report is
/// a per-module file without its design's hierarchy (per_module_file_without_hierarchy)
/// and that holds no module file is no design: its files count as not placed. Modules (ModuleInformation entries, else
/// tops), unknown values (module, field) and contradictions count once per folder: the
/// top's csynth.xml and <top>_csynth.xml print the same ones.
std::string csynth_totals(const std::vector<CsynthReport>& csynth, const std::vector<DesignGroup>& designs) {
  std::size_t placed = 0, unplaced = 0;
  for (const auto& g : designs) {
    if (per_module_file_without_hierarchy(csynth[g.report]) && g.modules.empty()) {
      unplaced += 1 + g.same_top.size();
    } else {
      ++placed;
    }
  }
  std::set<std::pair<std::string, std::string>> modules;
  std::set<std::tuple<std::string, std::string, std::string>> unknowns, contradicted;
  std::size_t identity = 0;
  for (const auto& r : csynth) {
    const std::string folder = r.source.substr(0, r.source.find_last_of('/') + 1);
    if (r.modules.empty()) modules.insert({folder, r.top});
    for (const auto& m : r.modules) modules.insert({folder, m.name});
    for (const auto& u : r.unknowns) unknowns.insert({folder, u.module, u.field});
    for (const auto& c : contradictions(r)) contradicted.insert({folder, c.module, c.what});
    identity += identity_problems(r).size();
  }
  auto n = [](std::size_t k, const char* what) { return fmt::format("{} {}{}", k, what, k == 1 ? "" : "s"); };
  const std::string not_placed = unplaced ? ", " + n(unplaced, "file") + " not placed under a top" : "";
  return fmt::format("{}, {}{}: {} read, {}, {}, {}\n", n(csynth.size(), "csynth file"), n(placed, "design"), not_placed,
                     n(modules.size(), "module"), n(unknowns.size(), "unknown value"), n(identity, "identity problem"),
                     n(contradicted.size(), "contradiction"));
}

/// "  unknown (read as absent): line 40: row "URAM" column Used = ?", one line per value.
void print_vivado_unknowns(const std::vector<UnknownValue>& unknowns) {
  for (const auto& u : unknowns) std::cout << fmt::format("  unknown (read as absent): {} = {}\n", u.field, u.text);
}

/// The Vivado implementation, co-simulation, utilization and power reports of `s`, and
/// the Vivado reports rejected (a needed figure unknown or malformed) with the reader's error.
void print_impl_reports(const ReportSet& s) {
  for (const auto& e : s.export_impl) {
    std::cout << fmt::format("export_impl  {}\n  Vivado {}  clock target {}  achieved {}  timing met {}\n"
                             "  post-route BRAM_18K {}  DSP {}  FF {}  LUT {}  URAM {}  CLB {}\n",
                             e.source, e.vivado_version, opt_ns(e.target_clock_ns),
                             opt_ns(e.achieved_clock_ns),
                             e.timing_met ? (*e.timing_met ? "yes" : "no") : "-", opt_num(e.bram_18k),
                             opt_num(e.dsp), opt_num(e.ff), opt_num(e.lut), opt_num(e.uram), opt_num(e.clb));
  }
  for (const auto& c : s.cosim) {
    std::cout << fmt::format("cosim        {}\n", c.source);
    for (const auto& r : c.runs) {
      std::cout << fmt::format("  {:<8} {:<5} latency {} / {} / {}  interval {} / {} / {}  total {}\n",
                               r.rtl, r.status, r.latency_min.str(), r.latency_avg.str(),
                               r.latency_max.str(), r.interval_min.str(), r.interval_avg.str(),
                               r.interval_max.str(), r.total_execution.str());
    }
  }
  for (const auto& u : s.utilization) {
    std::cout << fmt::format("utilization  {}\n  device {}  {}\n  LUT {}  FF {}  Block RAM tiles {} "
                             "(= {} BRAM_18K)  URAM {}  DSP {}\n",
                             u.source, u.device, u.design_state, u.clb_luts.used,
                             u.clb_registers.used, u.block_ram_tile.used, u.bram_18k(),
                             u.uram ? fmt::format("{}", u.uram->used) : "-", u.dsp.used);
    print_vivado_unknowns(u.unknowns);
  }
  for (const auto& p : s.power) {
    std::cout << fmt::format("power        {}\n  device {}  total {:.3f} W  dynamic {:.3f} W  static "
                             "{:.3f} W{}  confidence {}\n",
                             p.source, p.device, p.total_on_chip_w, p.dynamic_w, p.device_static_w,
                             p.hbm_w ? fmt::format("  HBM {:.3f} W", *p.hbm_w) : "", p.confidence_level);
    print_vivado_unknowns(p.unknowns);
  }
  for (const auto& [path, why] : s.rejected) std::cout << fmt::format("rejected     {}\n  {}\n", path, why);
}

int run_inspect_report(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string path, out;
  options.add_options()
      ("path", po::value<std::string>(&path)->required(),
       "a report file (*csynth.xml, export_impl.xml, *_cosim.rpt, *utilization*.rpt, "
       "*power*.rpt) or a folder searched recursively for them")
      ("json", po::value<std::string>(&out),
       "also write everything read as JSON to this file (atomically); per csynth report: top, "
       "part, tool_version, target_clock_ns, estimated_clock_ns, latency_best, latency_worst, "
       "interval_min, interval_max (null when unknown), resources, loops (tree), modules, unknowns, "
       "identity_problems, contradictions; designs: the files of each build grouped under its top")
      ("modules", po::bool_switch(), "list every ModuleInformation module with its loops");
  po::positional_options_description pos;
  pos.add("path", 1);
  po::variables_map vm;
  if (!parse_options("inspect-report", "PATH [--json OUT] [--modules]", options, pos, args, vm)) {
    return 0;
  }
  refuse_clashing_paths({{"--json", out}}, {{"PATH", path}});
  refuse_output_inside({"--json", out}, {"PATH", path});
  check_output_writable({"--json", out});
  const ReportSet s = read_reports(path);
  // A report named directly that its reader refuses is the input's fault, as a csynth.xml
  // the reader refuses is (a folder lists such files as rejected and goes on).
  if (std::filesystem::is_regular_file(path) && s.rejected.size() == 1) {
    throw InputError(s.rejected[0].second);
  }
  if (s.csynth.empty() && s.export_impl.empty() && s.cosim.empty() && s.utilization.empty() && s.power.empty() &&
      s.rejected.empty()) {
    throw InputError(path + ": no report of a known kind found (*csynth.xml, export_impl.xml, *_cosim.rpt, "
                            "*utilization*.rpt, *power*.rpt)");
  }
  const std::vector<DesignGroup> designs = group_designs(s.csynth);
  for (const auto& g : designs) {
    const CsynthReport& r = s.csynth[g.report];
    print_csynth(r, vm["modules"].as<bool>());
    print_checks(r, 2);
    if (!r.latency_worst.known()) {
      if (auto c = cosim_latency_for(r, s.cosim)) {
        std::cout << fmt::format("  latency from co-simulation (ground truth; csynth undef): {} cycles ({})\n",
                                 c->latency.str(), c->source);
      }
    }
    if (per_module_file_without_hierarchy(r)) {
      std::cout << "  not placed under a top: per-module file without its design's hierarchy (it prints no "
                   "RTLDesignHierarchy / ModuleInformation, and no report beside it names it as a module); "
                   "its calls are unknown (compare-rules skips it)\n";
    }
    print_design_files(s.csynth, g);
  }
  if (!s.csynth.empty()) std::cout << csynth_totals(s.csynth, designs);
  print_impl_reports(s);
  if (!s.not_read.empty()) {
    std::cout << fmt::format("not read ({} files of no known report kind)\n", s.not_read.size());
  }
  if (!out.empty()) {
    write_file_atomic(out, report_set_json(s).dump(2) + "\n");
    std::cout << "wrote " << out << "\n";
  }
  return 0;
}

const CommandRegistration kRegistration{
    {"inspect-report", "print what was read from HLS/Vivado reports (csynth.xml, utilization, power, cosim)",
     run_inspect_report}};

}  // namespace
}  // namespace ttsim::cli
