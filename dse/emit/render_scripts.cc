// The Vitis scripts of a build (render_scripts, dse/emit/render.h): run_hls.tcl,
// hls_config.cfg and the v++ link config.

#include <fmt/format.h>

#include "dse/emit/render.h"

namespace ttsim::dse {

namespace {

constexpr const char* kTop = "ttsim_train_step";
constexpr const char* kCflags = "-std=c++14";

/// The clock period in ns as the scripts write it: 10 for 100 MHz.
std::string period_ns(double clock_mhz) { return fmt::format("{:g}", 1000.0 / clock_mhz); }

/// run_hls.tcl up to its list of kernel sources: the header comment, the arguments, part,
/// clock, top and folders.
std::string tcl_head(const BuildDesign& d) {
  const std::string board = d.device.name, label = d.label, part = d.device.part;
  const std::string period = period_ns(d.arch.clock_mhz);
  const std::string clock = fmt::format("{:g}", d.arch.clock_mhz);
  return fmt::format(
      "# run_hls.tcl — Vitis HLS (classic Tcl flow) build of the ttsim training kernels, design\n"
      "# \"{label}\" ({configs}) on {board}. Rendered by `ttsim emit` (dse/emit/emit.h)\n"
      "# with design_config.h; do not edit by hand.\n"
      "#\n"
      "#   cd <root> && vitis_hls -f hls/scripts/run_hls.tcl [-tclargs <board> <design> <steps>]\n"
      "#\n"
      "# <root> is the folder holding hls/ (the ttsim checkout or an emitted build). board  label\n"
      "# of the target board (default {board}); design  label of the design point (default\n"
      "# {label}, the design_config.h in hls/include); steps  comma list of\n"
      "# csim,csynth,cosim,export (default all four). The project is created under\n"
      "# build/hls/<board>/<design>/ (under $TTSIM_HLS_OUT instead of <root> when set); the\n"
      "# csynth reports (csynth.xml, csynth.rpt and one <module>_csynth.xml per ttsim_* module)\n"
      "# and the cosim report are copied to reports/<board>/<design>/ for `ttsim calibrate` /\n"
      "# `ttsim compare`.\n"
      "\n"
      "set script_dir [file dirname [file normalize [info script]]]\n"
      "set hls_dir [file dirname $script_dir]\n"
      "set repo_dir [file dirname $hls_dir]\n"
      "\n"
      "set board {board}\n"
      "set design {label}\n"
      "set steps {{csim csynth cosim export}}\n"
      "if {{[info exists ::argv] && [llength $::argv] >= 1}} {{ set board [lindex $::argv 0] }}\n"
      "if {{[info exists ::argv] && [llength $::argv] >= 2}} {{ set design [lindex $::argv 1] }}\n"
      "if {{[info exists ::argv] && [llength $::argv] >= 3}} {{ set steps [split [lindex $::argv 2] ,] }}\n"
      "\n"
      "set part {part}\n"
      "# {clock} MHz, the design's clock.\n"
      "set clock_period {period}\n"
      "set top {top}\n"
      "\n"
      "# Output root: <root>, or $TTSIM_HLS_OUT when set.\n"
      "set out_dir $repo_dir\n"
      "if {{[info exists ::env(TTSIM_HLS_OUT)]}} {{ set out_dir $::env(TTSIM_HLS_OUT) }}\n"
      "set project_dir [file join $out_dir build hls $board $design]\n"
      "set report_dir [file join $out_dir reports $board $design]\n"
      "file mkdir $project_dir\n"
      "cd $project_dir\n"
      "\n"
      "set cflags \"{cflags} -I$repo_dir\"\n"
      "set kernel_sources {{\n",
      fmt::arg("label", label), fmt::arg("configs", configs_phrase(d)),
      fmt::arg("board", board), fmt::arg("part", part), fmt::arg("clock", clock), fmt::arg("period", period),
      fmt::arg("top", kTop), fmt::arg("cflags", kCflags));
}

/// run_hls.tcl after its list of kernel sources: the project, the steps and the copy of
/// the reports.
std::string tcl_tail() {
  return fmt::format(
      "}}\n"
      "\n"
      "open_project -reset ttsim_$design\n"
      "foreach src $kernel_sources {{\n"
      "  add_files [file join $hls_dir $src] -cflags $cflags\n"
      "}}\n"
      "add_files -tb [file join $hls_dir {tb}] -cflags $cflags\n"
      "set_top $top\n"
      "\n"
      "open_solution -reset solution1 -flow_target vitis\n"
      "set_part $part\n"
      "create_clock -period $clock_period -name default\n"
      "config_compile -name_max_length 256\n"
      "config_interface -m_axi_addr64\n"
      "\n"
      "if {{\"csim\" in $steps}} {{ csim_design }}\n"
      "if {{\"csynth\" in $steps}} {{ csynth_design }}\n"
      "if {{\"cosim\" in $steps}} {{ cosim_design -rtl verilog }}\n"
      "if {{\"export\" in $steps}} {{\n"
      "  export_design -rtl verilog -format xo -output [file join $project_dir $top.xo]\n"
      "}}\n"
      "\n"
      "# Copy the reports where calibration looks for them.\n"
      "file mkdir $report_dir\n"
      "set solution_dir [file join $project_dir ttsim_$design solution1]\n"
      "foreach sub {{syn/report sim/report}} {{\n"
      "  set dir [file join $solution_dir $sub]\n"
      "  if {{[file isdirectory $dir]}} {{\n"
      "    foreach f [glob -nocomplain -directory $dir *.xml *.rpt] {{\n"
      "      file copy -force $f $report_dir\n"
      "    }}\n"
      "  }}\n"
      "}}\n"
      "close_project\n",
      fmt::arg("tb", kCsimTestbench));
}

/// run_hls.tcl: the classic Tcl flow over `sources` (paths under hls/).
std::string run_hls_tcl(const BuildDesign& d, const std::vector<std::string>& sources) {
  std::string tcl = tcl_head(d);
  for (const auto& src : sources) tcl += "  " + src + "\n";
  return tcl + tcl_tail();
}

/// hls_config.cfg: the unified `v++ --mode hls` flow over `sources` (paths under hls/).
std::string hls_config_cfg(const BuildDesign& d, const std::vector<std::string>& sources) {
  const std::string board = d.device.name, label = d.label, part = d.device.part;
  const std::string period = period_ns(d.arch.clock_mhz);
  std::string cfg = fmt::format(
      "# Vitis unified-flow (v++ --mode hls) configuration of the ttsim training kernels, design\n"
      "# \"{label}\" ({configs}) on {board}. Rendered by `ttsim emit` (dse/emit/emit.h)\n"
      "# with design_config.h; do not edit by hand. Paths are relative to this file (hls/scripts/).\n"
      "#   v++ -c --mode hls --config hls/scripts/hls_config.cfg --work_dir build/hls/{board}/{label}\n"
      "#   vitis-run --mode hls --csim --config hls/scripts/hls_config.cfg --work_dir build/hls/{board}/{label}\n"
      "part={part}\n"
      "\n"
      "[hls]\n"
      "flow_target=vitis\n"
      "clock={period}ns\n"
      "syn.top={top}\n",
      fmt::arg("label", label), fmt::arg("configs", configs_phrase(d)),
      fmt::arg("board", board), fmt::arg("part", part), fmt::arg("period", period), fmt::arg("top", kTop));
  for (const auto& src : sources) cfg += "syn.file=../" + src + "\n";
  for (const auto& src : sources) cfg += "syn.file_cflags=../" + src + "," + kCflags + " -I../..\n";
  cfg += fmt::format(
      "tb.file=../{tb}\n"
      "tb.file_cflags=../{tb},{cflags} -I../..\n"
      "syn.compile.name_max_length=256\n"
      "syn.interface.m_axi_addr64=1\n"
      "package.output.format=xo\n"
      "package.output.file={top}.xo\n",
      fmt::arg("tb", kCsimTestbench), fmt::arg("cflags", kCflags), fmt::arg("top", kTop));
  return cfg;
}

/// The v++ link config, named `name`.
std::string link_cfg(const BuildDesign& d, const std::string& name) {
  const std::string board = d.device.name, label = d.label;
  return fmt::format(
      "# v++ link configuration of the ttsim training kernel, design \"{label}\" on {board}.\n"
      "# Rendered by `ttsim emit` (dse/emit/emit.h); do not edit by hand.\n"
      "#   v++ -l -t hw --config hls/scripts/{name} -o ttsim.xclbin {top}.xo\n"
      "# The kernel is not pinned to a super logic region (no slr option): one SLR can hold\n"
      "# fewer DSPs and block RAMs than the design uses (SLR0 of the U50 does), so placement is\n"
      "# left to v++ until a machine description derives an SLR from the design's resources.\n"
      "platform={platform}\n"
      "\n"
      "[connectivity]\n"
      "nk={top}:1:{top}_1\n"
      "sp={top}_1.param_io:HBM[0]\n"
      "\n"
      "[clock]\n"
      "freqHz={hz:.0f}:{top}_1\n",
      fmt::arg("label", label), fmt::arg("board", board), fmt::arg("name", name),
      fmt::arg("top", kTop), fmt::arg("platform", d.device.platform), fmt::arg("hz", d.arch.clock_mhz * 1e6));
}

}  // namespace

std::string link_cfg_name(const BuildDesign& d) { return d.device.name + "_link.cfg"; }

HlsScripts render_scripts(const BuildDesign& d, const std::vector<std::string>& sources) {
  HlsScripts s;
  s.run_hls_tcl = run_hls_tcl(d, sources);
  s.hls_config_cfg = hls_config_cfg(d, sources);
  s.link_cfg_name = link_cfg_name(d);
  s.link_cfg = link_cfg(d, s.link_cfg_name);
  return s;
}

}  // namespace ttsim::dse
