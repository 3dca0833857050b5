# Runs hls/scripts/run_hls.tcl in tclsh with recording stand-ins for the Vitis HLS
# commands and checks the recorded calls: part, clock, top, every added file exists,
# command order, report copy to reports/<board>/<design>/; then checks hls_config.cfg
# and the v++ link config (platform, HBM mapping, clock, no SLR pin). Exits 1 when a
# check failed.

set failures 0
proc check {cond msg} {
  if {![uplevel 1 [list expr $cond]]} {
    puts "FAIL: $msg"
    incr ::failures
  } else {
    puts "ok: $msg"
  }
}

set ::calls {}
proc record {args} { lappend ::calls $args }
foreach cmd {open_project add_files set_top open_solution set_part create_clock config_compile
             config_interface csim_design cosim_design export_design close_project} {
  proc $cmd {args} "record $cmd {*}\$args"
}
# csynth_design stand-in: records, and writes the report files Vitis would write.
proc csynth_design {args} {
  record csynth_design {*}$args
  set dir [file join [pwd] $::proj_name solution1 syn report]
  file mkdir $dir
  foreach f {csynth.xml csynth.rpt ttsim_contraction_csynth.xml} {
    set h [open [file join $dir $f] w]; puts $h "<report/>"; close $h
  }
}

set root [pwd]
set out [expr {[info exists ::env(TEST_TMPDIR)] ? $::env(TEST_TMPDIR) : [file join $root tmp_hls_out]}]
set ::env(TTSIM_HLS_OUT) $out
set ::proj_name ttsim_atis_2enc
set ::argv {u50 atis_2enc csim,csynth,cosim,export}
source [file join $root hls scripts run_hls.tcl]
cd $root

proc calls_of {name} {
  set out {}
  foreach c $::calls { if {[lindex $c 0] eq $name} { lappend out $c } }
  return $out
}
proc index_of {name} {
  set i 0
  foreach c $::calls { if {[lindex $c 0] eq $name} { return $i }; incr i }
  return -1
}

check {[lindex [lindex [calls_of set_part] 0] 1] eq "xcu50-fsvh2104-2-e"} "set_part xcu50-fsvh2104-2-e"
set clk [lindex [calls_of create_clock] 0]
check {[lsearch -exact $clk -period] >= 0 && [lindex $clk [expr {[lsearch -exact $clk -period] + 1}]] == 10} \
  "create_clock -period 10 (100 MHz)"
check {[lindex [lindex [calls_of set_top] 0] 1] eq "ttsim_train_step"} "set_top ttsim_train_step"
check {[lindex [lindex [calls_of open_project] 0] end] eq "ttsim_atis_2enc"} "open_project ttsim_atis_2enc"
set sol [lindex [calls_of open_solution] 0]
check {[lsearch -exact $sol -flow_target] >= 0 && [lsearch -exact $sol vitis] >= 0} "open_solution -flow_target vitis"

set srcs {}
set tbs {}
foreach c [calls_of add_files] {
  if {[lindex $c 1] eq "-tb"} { lappend tbs [lindex $c 2] } else { lappend srcs [lindex $c 1] }
  set fi [lsearch -exact $c -cflags]
  check {$fi >= 0 && [string match "*-I*" [lindex $c [expr {$fi + 1}]]]} "add_files [lindex $c end-2] has -cflags with an include path"
}
foreach f [concat $srcs $tbs] { check {[file isfile $f]} "added file exists: $f" }
check {[llength $tbs] == 1 && [string match *csim_tb.cc [lindex $tbs 0]]} "testbench added with -tb"
set top_defined 0
foreach f $srcs {
  set h [open $f]; set text [read $h]; close $h
  if {[regexp {void ttsim_train_step\(} $text]} { set top_defined 1 }
}
check {$top_defined} "the top function is defined in an added source"
# Every kernel source of the tree is added.
foreach f [glob -directory [file join $root hls kernels] *.cc] {
  check {[lsearch -exact [lmap s $srcs {file normalize $s}] [file normalize $f]] >= 0} "kernel source added: [file tail $f]"
}

set order {open_project add_files set_top open_solution set_part create_clock csim_design csynth_design cosim_design export_design close_project}
set prev -1
set in_order 1
foreach name $order {
  set i [index_of $name]
  if {$i < 0 || $i < $prev} { set in_order 0 }
  set prev $i
}
check {$in_order} "Vitis commands in the canonical order"
set exp [lindex [calls_of export_design] 0]
check {[lsearch -exact $exp xo] >= 0} "export_design -format xo"

set rep [file join $out reports u50 atis_2enc]
foreach f {csynth.xml csynth.rpt ttsim_contraction_csynth.xml} {
  check {[file isfile [file join $rep $f]]} "report copied to reports/u50/atis_2enc/$f"
}

# Unified-flow config.
set cfg_dir [file join $root hls scripts]
set h [open [file join $cfg_dir hls_config.cfg]]; set cfg [read $h]; close $h
check {[regexp -line {^part=xcu50-fsvh2104-2-e$} $cfg]} "hls_config.cfg part"
check {[regexp -line {^syn.top=ttsim_train_step$} $cfg]} "hls_config.cfg syn.top"
check {[regexp -line {^clock=10ns$} $cfg]} "hls_config.cfg clock 10ns"
set cfg_files {}
foreach {- f} [regexp -all -inline -line {^(?:syn|tb)\.file=(.*)$} $cfg] {
  lappend cfg_files $f
  check {[file isfile [file join $cfg_dir $f]]} "hls_config.cfg file exists: $f"
}
check {[llength $cfg_files] == [llength $srcs] + [llength $tbs]} "hls_config.cfg lists the same number of files as run_hls.tcl"

set h [open [file join $cfg_dir u50_link.cfg]]; set link [read $h]; close $h
check {[regexp -line {^platform=xilinx_u50_gen3x16_xdma_5_202210_1$} $link]} "link config platform"
check {[regexp -line {^nk=ttsim_train_step:1:} $link]} "link config instantiates ttsim_train_step"
check {[regexp -line {^sp=ttsim_train_step_1\.param_io:HBM\[0\]$} $link]} "link config maps param_io to HBM"
check {[regexp -line {^freqHz=100000000:ttsim_train_step_1$} $link]} "link config kernel clock 100 MHz"
# Placement is left to v++: one SLR can hold fewer DSPs/BRAMs than the design uses.
check {![regexp -line {^\s*slr\s*=} $link]} "link config pins no SLR"

if {$failures > 0} { puts "$failures check(s) failed"; exit 1 }
puts "all checks passed"
exit 0
