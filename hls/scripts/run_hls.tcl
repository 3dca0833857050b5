# run_hls.tcl — Vitis HLS (classic Tcl flow) build of the ttsim training kernels, design
# "atis_2enc" (model atis_2enc, arch u50_paper) on u50. Rendered by `ttsim emit` (dse/emit/emit.h)
# with design_config.h; do not edit by hand.
#
#   cd <root> && vitis_hls -f hls/scripts/run_hls.tcl [-tclargs <board> <design> <steps>]
#
# <root> is the folder holding hls/ (the ttsim checkout or an emitted build). board  label
# of the target board (default u50); design  label of the design point (default
# atis_2enc, the design_config.h in hls/include); steps  comma list of
# csim,csynth,cosim,export (default all four). The project is created under
# build/hls/<board>/<design>/ (under $TTSIM_HLS_OUT instead of <root> when set); the
# csynth reports (csynth.xml, csynth.rpt and one <module>_csynth.xml per ttsim_* module)
# and the cosim report are copied to reports/<board>/<design>/ for `ttsim calibrate` /
# `ttsim compare`.

set script_dir [file dirname [file normalize [info script]]]
set hls_dir [file dirname $script_dir]
set repo_dir [file dirname $hls_dir]

set board u50
set design atis_2enc
set steps {csim csynth cosim export}
if {[info exists ::argv] && [llength $::argv] >= 1} { set board [lindex $::argv 0] }
if {[info exists ::argv] && [llength $::argv] >= 2} { set design [lindex $::argv 1] }
if {[info exists ::argv] && [llength $::argv] >= 3} { set steps [split [lindex $::argv 2] ,] }

set part xcu50-fsvh2104-2-e
# 100 MHz, the design's clock.
set clock_period 10
set top ttsim_train_step

# Output root: <root>, or $TTSIM_HLS_OUT when set.
set out_dir $repo_dir
if {[info exists ::env(TTSIM_HLS_OUT)]} { set out_dir $::env(TTSIM_HLS_OUT) }
set project_dir [file join $out_dir build hls $board $design]
set report_dir [file join $out_dir reports $board $design]
file mkdir $project_dir
cd $project_dir

set cflags "-std=c++14 -I$repo_dir"
set kernel_sources {
  kernels/attention.cc
  kernels/model_step.cc
  kernels/modules.cc
  kernels/top.cc
  kernels/tt_linear.cc
  kernels/ttm_embedding.cc
  include/access_probe.cc
  include/loop_counter.cc
}

open_project -reset ttsim_$design
foreach src $kernel_sources {
  add_files [file join $hls_dir $src] -cflags $cflags
}
add_files -tb [file join $hls_dir tb/csim_tb.cc] -cflags $cflags
set_top $top

open_solution -reset solution1 -flow_target vitis
set_part $part
create_clock -period $clock_period -name default
config_compile -name_max_length 256
config_interface -m_axi_addr64

if {"csim" in $steps} { csim_design }
if {"csynth" in $steps} { csynth_design }
if {"cosim" in $steps} { cosim_design -rtl verilog }
if {"export" in $steps} {
  export_design -rtl verilog -format xo -output [file join $project_dir $top.xo]
}

# Copy the reports where calibration looks for them.
file mkdir $report_dir
set solution_dir [file join $project_dir ttsim_$design solution1]
foreach sub {syn/report sim/report} {
  set dir [file join $solution_dir $sub]
  if {[file isdirectory $dir]} {
    foreach f [glob -nocomplain -directory $dir *.xml *.rpt] {
      file copy -force $f $report_dir
    }
  }
}
close_project
