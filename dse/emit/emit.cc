#include "dse/emit/emit.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "core/atomic_file.h"
#include "hls/host/reference_step.h"
#include "core/errors.h"
#include "hls/include/kernel_spec.h"
#include "models/training_graph.h"
#include "sim/step_sim.h"
#include "machine/machine_report.h"

namespace ttsim::dse {

/// File every emitted build folder holds, so that a later emit may replace the folder.
constexpr const char* kEmitMarker = ".ttsim-emit";

namespace fs = std::filesystem;

const char* const kDefaultModelFile = "configs/models/atis_2enc.json";
const char* const kDefaultArchFile = "configs/arch/u50_paper.json";
const char* const kDefaultDeviceFile = "configs/devices/u50.json";

namespace {

constexpr const char* kTop = "ttsim_train_step";
constexpr const char* kTestbench = "tb/csim_tb.cc";
/// Compares one step of the top with the Eigen reference's (reference_step.bin).
constexpr const char* kReferenceTestbench = "tb/reference_tb.cc";
constexpr const char* kReferenceStepFile = "reference_step.bin";
constexpr const char* kCflags = "-std=c++14";

template <typename T>
std::string int_list(const T* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

void check_emit_name(const std::string& name, const std::string& file, const std::string& pointer) {
  const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-';
  });
  if (!ok) {
    throw ConfigError(file, pointer,
                      "a non-empty name of the characters A-Z a-z 0-9 _ . + - (it is written into "
                      "run_hls.tcl, hls_config.cfg, the link config, README.md and design_config.h)",
                      Json(name).dump());
  }
}

namespace {

std::string emit_name(const JsonView& v) {
  const std::string name = v.as_string();
  check_emit_name(name, v.file(), v.pointer());
  return name;
}

/// The lane constant of design_config.h each kernel module is instantiated with
/// (hls/kernels/modules.cc).
struct LaneConstant {
  const char* constant;
  std::vector<std::string> modules;
};
const std::vector<LaneConstant>& lane_constants() {
  static const std::vector<LaneConstant> k = {
      {"kContractLanes", {"ttsim_contraction"}},
      {"kSoftmaxLanes", {"ttsim_softmax", "ttsim_softmax_grad"}},
      {"kLayerNormLanes", {"ttsim_layernorm", "ttsim_layernorm_grad"}},
      {"kGeluLanes", {"ttsim_gelu", "ttsim_gelu_grad"}},
      {"kAddLanes", {"ttsim_add", "ttsim_add_accumulate", "ttsim_column_sum"}},
      {"kLossLanes", {"ttsim_loss"}},
      {"kSgdLanes", {"ttsim_sgd_update"}},
  };
  return k;
}

/// "param_mem" → "param": the stem naming a memory's constants.
std::string memory_stem(const std::string& array) {
  const std::string suffix = "_mem";
  if (array.size() > suffix.size() && array.compare(array.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return array.substr(0, array.size() - suffix.size());
  }
  return array;
}
std::string camel(const std::string& stem) {
  std::string s;
  bool up = true;
  for (char c : stem) {
    if (c == '_') {
      up = true;
      continue;
    }
    s += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return s;
}
std::string upper(const std::string& s) {
  std::string u;
  for (char c : s) u += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

std::string tt_block(const char* kind, const ttsim_hls::TtDims& t) {
  return fmt::format(
      "constexpr int k{0}D = {1}, k{0}E = {2};\n"
      "constexpr int k{0}InFactors[k{0}D] = {{{3}}};\n"
      "constexpr int k{0}OutFactors[k{0}E] = {{{4}}};\n\n",
      kind, t.d, t.e, int_list(t.m, t.d), int_list(t.n, t.e));
}

/// kLayerRanks: r_0 .. r_{d+e} of every encoder layer (q, k, v, o, ffn_in, ffn_out), each
/// row padded with zeros to 2 · kMaxFactors + 1 entries.
std::string layer_ranks(const ttsim_hls::ModelDims& m) {
  static const char* const kNames[] = {"q", "k", "v", "o", "ffn_in", "ffn_out"};
  std::string s =
      "// TT ranks r_0 .. r_{d+e} of every encoder layer, per encoder in the order q, k, v, o,\n"
      "// ffn_in, ffn_out (r_0 = r_{d+e} = 1; zeros pad each row).\n"
      "constexpr int kLayerRanks[kEncoders][6][2 * kMaxFactors + 1] = {\n";
  for (int e = 0; e < m.encoders; ++e) {
    s += "    {\n";
    for (int i = 0; i < 6; ++i) {
      const ttsim_hls::TtDims& t = m.lin[e][i].t;
      int row[2 * ttsim_hls::kMaxTtFactors + 1] = {0};
      for (int k = 0; k <= t.d + t.e; ++k) row[k] = t.r[k];
      s += fmt::format("        {{{}}},  // enc{}.{}\n", int_list(row, 2 * ttsim_hls::kMaxTtFactors + 1), e, kNames[i]);
    }
    s += "    },\n";
  }
  return s + "};\n\n";
}

/// The clock period in ns as the scripts write it: 10 for 100 MHz.
std::string period_ns(double clock_mhz) { return fmt::format("{:g}", 1000.0 / clock_mhz); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError(p.string() + ": cannot read");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

BuildDesign make_build_design(ModelSpec model, ArchSpec arch, DeviceSpec device, std::string label,
                              const std::string& file) {
  BuildDesign d;
  check_emit_name(model.name, file, "/configs/model/name");
  if (!label.empty()) check_emit_name(label, file, "/name");
  d.label = label.empty() ? model.name : std::move(label);
  check_emit_name(arch.name, file, "/configs/arch/name");
  check_emit_name(device.name, file, "/configs/device/name");
  check_emit_name(device.part, file, "/configs/device/part");
  check_emit_name(device.platform, file, "/configs/device/platform");
  d.model = std::move(model);
  d.arch = std::move(arch);
  d.device = std::move(device);
  machine::check_buildable(d.arch);
  d.hls = machine::hls_design(d.model, d.arch, file);
  const TaskGraph graph = build_training_graph(d.model, graph_options(d.arch, 0));
  d.machine = machine::describe(d.model, d.arch, d.device, graph);
  const std::vector<std::string> over = machine::over_device(d.machine, d.device);
  if (!over.empty()) {
    std::string s;
    for (const auto& o : over) s += (s.empty() ? "" : "; ") + o;
    throw InputError(file + ": design \"" + d.label + "\" does not fit device " + d.device.name + " (" +
                     d.device.part + "): " + s);
  }
  return d;
}

std::string render_design_config(const BuildDesign& d) {
  const machine::Machine& mc = d.machine;
  const ttsim_hls::ModelDims& m = d.hls.dims;
  // Lanes per constant, from the instances; modules sharing a constant must agree.
  std::map<std::string, const machine::KernelInstance*> by_module;
  for (const auto& k : mc.instances) by_module[k.module] = &k;
  std::string lanes;
  std::size_t covered = 0;
  for (const LaneConstant& c : lane_constants()) {
    const machine::KernelInstance* first = nullptr;
    for (const auto& mod : c.modules) {
      auto it = by_module.find(mod);
      if (it == by_module.end()) continue;
      ++covered;
      if (!first) {
        first = it->second;
      } else if (it->second->lanes != first->lanes) {
        throw InputError("design \"" + d.label + "\": modules " + first->module + " (" +
                         std::to_string(first->lanes) + " lanes) and " + mod + " (" +
                         std::to_string(it->second->lanes) + " lanes) share " + c.constant +
                         " in hls/kernels/modules.cc");
      }
    }
    if (!first) throw InputError(std::string("design_config.h: no kernel module of the machine uses ") + c.constant);
    lanes += fmt::format("constexpr int {} = {};\n", c.constant, first->lanes);
  }
  if (covered != mc.instances.size()) {
    for (const auto& k : mc.instances) {
      bool found = false;
      for (const LaneConstant& c : lane_constants()) {
        found = found || std::find(c.modules.begin(), c.modules.end(), k.module) != c.modules.end();
      }
      if (!found) throw InputError("design_config.h: kernel module " + k.module + " has no lane constant");
    }
  }

  std::string h = fmt::format(
      "#pragma once\n"
      "// design_config.h — the compile-time design point of the HLS training kernels.\n"
      "//\n"
      "// Rendered by `ttsim emit` (dse/emit/emit.h) from the machine description (machine/machine.h)\n"
      "// of design \"{}\": model \"{}\", arch \"{}\", device \"{}\".\n"
      "// Do not edit by hand: re-render it (`ttsim emit --design chosen.json --out DIR` for a\n"
      "// chosen design; the tree's own copy is the default design, rewritten by\n"
      "// `ttsim emit --default-tree`, and a test requires it byte-identical to that rendering).\n"
      "// Every name below is part of the emitter's contract:\n"
      "//\n"
      "//  Model shape    kEncoders, kDModel, kHeads, kFfnDim, kSeqLen, kVocab, kIntents, kSlotTags\n"
      "//  TT layers      kMaxFactors; per kind (Attn = Q/K/V/O, FfnIn, FfnOut):\n"
      "//                 k<Kind>InFactors[k<Kind>D], k<Kind>OutFactors[k<Kind>E];\n"
      "//                 per encoder layer: kLayerRanks[kEncoders][6][2 * kMaxFactors + 1]\n"
      "//  TTM embedding  kTtmD, kTtmVocabFactors[kTtmD], kTtmDimFactors[kTtmD], kTtmRanks[kTtmD + 1]\n"
      "//  Flow           kUseBtt (true: BTT flow for every TT layer; false: sequential TT)\n"
      "//  Lanes          UNROLL factor of each kernel module's pipelined body (the instance's\n"
      "//                 lanes): kContractLanes, kSoftmaxLanes, kLayerNormLanes, kGeluLanes,\n"
      "//                 kAddLanes, kLossLanes, kSgdLanes (hls/kernels/modules.cc)\n"
      "//  Arenas         kArenaBanks (banks of every float arena: <stem>_mem[rows][kArenaBanks],\n"
      "//                 dim 2 completely partitioned, hls/include/banked.h); per on-chip array\n"
      "//                 <stem>_mem of the top (the arenas of model_step.h ArenaId, and index): k<Stem>Words\n"
      "//                 (32-bit words), k<Stem>Partition (banks) and TTSIM_<STEM>_STORAGE\n"
      "//                 (BIND_STORAGE impl token: bram, uram or lutram)\n"
      "//  m_axi          TTSIM_PARAM_WORDS (depth of the param_io port)\n"
      "//  Capacity       TTSIM_MAX_ENCODERS (encoders the shape tables hold: kEncoders)\n"
      "//  Instances      TTSIM_INSTANCES_<MODULE> (ALLOCATION limit of each kernel module)\n"
      "//  Trip counts    TTSIM_TRIPS_<LOOP>_MIN / _MAX (LOOP_TRIPCOUNT of each kernel loop)\n"
      "//  II             TTSIM_II_<LOOP> (PIPELINE II of each kernel loop)\n"
      "//\n"
      "// Nothing here changes arithmetic: lanes, instances and storage only shape the hardware.\n\n"
      "namespace ttsim_cfg {{\n\n",
      d.label, d.model.name, d.arch.name, d.device.name);
  h += fmt::format(
      "constexpr int kEncoders = {};\nconstexpr int kDModel = {};\nconstexpr int kHeads = {};\n"
      "constexpr int kFfnDim = {};\nconstexpr int kSeqLen = {};\nconstexpr int kVocab = {};\n"
      "constexpr int kIntents = {};\nconstexpr int kSlotTags = {};\n\n"
      "constexpr int kMaxFactors = {};\n\n",
      m.encoders, m.d_model, m.heads, m.ffn_dim, m.seq_len, d.model.vocab, m.intents, m.slot_tags,
      ttsim_hls::kMaxTtFactors);
  h += tt_block("Attn", m.lin[0][0].t);
  h += tt_block("FfnIn", m.lin[0][4].t);
  h += tt_block("FfnOut", m.lin[0][5].t);
  h += layer_ranks(m);
  h += fmt::format(
      "constexpr int kTtmD = {0};\nconstexpr int kTtmVocabFactors[kTtmD] = {{{1}}};\n"
      "constexpr int kTtmDimFactors[kTtmD] = {{{2}}};\nconstexpr int kTtmRanks[kTtmD + 1] = {{{3}}};\n\n",
      m.emb.d, int_list(m.emb.v, m.emb.d), int_list(m.emb.e, m.emb.d), int_list(m.emb.r, m.emb.d + 1));
  h += fmt::format("constexpr bool kUseBtt = {};\n\n", d.hls.btt ? "true" : "false");
  h += lanes + "\n";
  h += fmt::format(
      "// Banks of every float arena (the largest lane count): a lane access of any module\n"
      "// finds each of its lanes in a bank of its own (hls/include/banked.h).\n"
      "constexpr int kArenaBanks = {};\n\n",
      mc.partition);
  std::string storage_macros;
  for (const machine::Memory& mem : mc.memories) {
    if (mem.storage == machine::Storage::kRegisters) {
      throw InputError("design \"" + d.label + "\": memory " + mem.array +
                       " in registers has no BIND_STORAGE impl in hls/kernels/top.cc");
    }
    const std::string stem = memory_stem(mem.array);
    h += fmt::format(
        "// {} ({}): {}, {} words of {} bits in {} bank(s) of {} words;\n"
        "//   {} BRAM36, {} URAM288.\n"
        "constexpr int k{}Words = {};\nconstexpr int k{}Partition = {};\n",
        mem.array, mem.holds, machine::to_string(mem.storage), mem.words, mem.width_bits, mem.partition,
        mem.bank_words(), mem.bram36, mem.uram288, camel(stem), mem.words, camel(stem), mem.partition);
    storage_macros += fmt::format("#define TTSIM_{}_STORAGE {}\n", upper(stem), machine::to_string(mem.storage));
  }
  h += "\n}  // namespace ttsim_cfg\n\n";
  h += "// Pragma arguments that must be tokens: the m_axi depth, each arena's BIND_STORAGE impl\n"
       "// and each kernel module's ALLOCATION limit (RTL instances shared by its call sites).\n";
  h += fmt::format("#define TTSIM_PARAM_WORDS {}\n", mc.param_words);
  h += fmt::format(
      "// Encoders the kernel tree's shape tables hold (hls/kernels/model_step.h kMaxEncoders):\n"
      "// this design's, so the top's tables are no larger than its model (the host tools\n"
      "// built by Bazel define their own).\n"
      "#ifndef TTSIM_MAX_ENCODERS\n#define TTSIM_MAX_ENCODERS {}\n#endif\n",
      m.encoders);
  h += storage_macros;
  for (const machine::KernelInstance& k : mc.instances) {
    h += fmt::format("#define TTSIM_INSTANCES_{} {}\n", upper(k.module), k.count);
  }
  // LOOP_TRIPCOUNT of every kernel loop (the loops' bounds are runtime shapes): the
  // smallest and largest trip over the step's calls, so that csynth reports the design's
  // latency range. A loop no call runs gets 1..1.
  h += "// LOOP_TRIPCOUNT bounds of each kernel loop over this design's calls (iterations).\n";
  for (int ki = 0; ki < ttsim_spec::kKernelSpecCount; ++ki) {
    const ttsim_spec::KernelSpec& ks = ttsim_spec::kKernelSpecs[ki];
    for (int li = 0; li < ks.n_loops; ++li) {
      std::int64_t lo = 0, hi = 0;
      for (const machine::KernelInstance& k : mc.instances) {
        for (const machine::LoopTrips& t : k.loops) {
          if (t.loop != ks.loops[li].name) continue;
          lo = lo == 0 ? t.min : std::min(lo, t.min);
          hi = std::max(hi, t.max);
        }
      }
      if (hi == 0) lo = hi = 1;
      h += fmt::format("#define TTSIM_TRIPS_{0}_MIN {1}\n#define TTSIM_TRIPS_{0}_MAX {2}\n",
                       upper(ks.loops[li].name), lo, hi);
    }
  }
  // PIPELINE II of every kernel loop: the II its instance is scheduled at (the largest
  // over the calls; 1 for a loop no call runs).
  h += "// PIPELINE II of each kernel loop (cycles), as the simulator prices it.\n";
  for (int ki = 0; ki < ttsim_spec::kKernelSpecCount; ++ki) {
    const ttsim_spec::KernelSpec& ks = ttsim_spec::kKernelSpecs[ki];
    for (int li = 0; li < ks.n_loops; ++li) {
      int ii = 1;
      for (const machine::KernelInstance& k : mc.instances) {
        for (const machine::LoopTrips& t : k.loops) {
          if (t.loop == ks.loops[li].name) ii = std::max(ii, t.ii);
        }
      }
      h += fmt::format("#define TTSIM_II_{} {}\n", upper(ks.loops[li].name), ii);
    }
  }
  return h;
}

HlsScripts render_scripts(const BuildDesign& d, const std::vector<std::string>& sources) {
  HlsScripts s;
  const std::string board = d.device.name, label = d.label, part = d.device.part;
  const std::string period = period_ns(d.arch.clock_mhz);
  const std::string clock = fmt::format("{:g}", d.arch.clock_mhz);

  s.run_hls_tcl = fmt::format(
      "# run_hls.tcl — Vitis HLS (classic Tcl flow) build of the ttsim training kernels, design\n"
      "# \"{label}\" (model {model}, arch {arch}) on {board}. Rendered by `ttsim emit` (dse/emit/emit.h)\n"
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
      "# {clock} MHz, the clock of arch {arch}.\n"
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
      fmt::arg("label", label), fmt::arg("model", d.model.name), fmt::arg("arch", d.arch.name),
      fmt::arg("board", board), fmt::arg("part", part), fmt::arg("clock", clock), fmt::arg("period", period),
      fmt::arg("top", kTop), fmt::arg("cflags", kCflags));
  for (const auto& src : sources) s.run_hls_tcl += "  " + src + "\n";
  s.run_hls_tcl += fmt::format(
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
      fmt::arg("tb", kTestbench));

  s.hls_config_cfg = fmt::format(
      "# Vitis unified-flow (v++ --mode hls) configuration of the ttsim training kernels, design\n"
      "# \"{label}\" (model {model}, arch {arch}) on {board}. Rendered by `ttsim emit` (dse/emit/emit.h)\n"
      "# with design_config.h; do not edit by hand. Paths are relative to this file (hls/scripts/).\n"
      "#   v++ -c --mode hls --config hls/scripts/hls_config.cfg --work_dir build/hls/{board}/{label}\n"
      "#   vitis-run --mode hls --csim --config hls/scripts/hls_config.cfg --work_dir build/hls/{board}/{label}\n"
      "part={part}\n"
      "\n"
      "[hls]\n"
      "flow_target=vitis\n"
      "clock={period}ns\n"
      "syn.top={top}\n",
      fmt::arg("label", label), fmt::arg("model", d.model.name), fmt::arg("arch", d.arch.name),
      fmt::arg("board", board), fmt::arg("part", part), fmt::arg("period", period), fmt::arg("top", kTop));
  for (const auto& src : sources) s.hls_config_cfg += "syn.file=../" + src + "\n";
  for (const auto& src : sources) s.hls_config_cfg += "syn.file_cflags=../" + src + "," + kCflags + " -I../..\n";
  s.hls_config_cfg += fmt::format(
      "tb.file=../{tb}\n"
      "tb.file_cflags=../{tb},{cflags} -I../..\n"
      "syn.compile.name_max_length=256\n"
      "syn.interface.m_axi_addr64=1\n"
      "package.output.format=xo\n"
      "package.output.file={top}.xo\n",
      fmt::arg("tb", kTestbench), fmt::arg("cflags", kCflags), fmt::arg("top", kTop));

  s.link_cfg_name = board + "_link.cfg";
  s.link_cfg = fmt::format(
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
      fmt::arg("label", label), fmt::arg("board", board), fmt::arg("name", s.link_cfg_name),
      fmt::arg("top", kTop), fmt::arg("platform", d.device.platform), fmt::arg("hz", d.arch.clock_mhz * 1e6));
  return s;
}

std::vector<std::string> hls_sources(const std::string& hls_root) {
  const fs::path hls = fs::path(hls_root) / "hls";
  if (!fs::is_directory(hls / "kernels")) throw InputError((hls / "kernels").string() + ": not found");
  std::vector<std::string> out;
  for (const char* sub : {"kernels", "include"}) {
    std::vector<std::string> names;
    if (!fs::is_directory(hls / sub)) continue;
    for (const auto& e : fs::directory_iterator(hls / sub)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() != ".cc" || name.rfind("spec_check.", 0) == 0) continue;
      names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) out.push_back(std::string(sub) + "/" + n);
  }
  return out;
}

BuildDesign default_design(const std::string& root) {
  const fs::path r(root);
  const std::string arch_file = (r / kDefaultArchFile).string();
  return make_build_design(load_model_spec((r / kDefaultModelFile).string()), load_arch_spec(arch_file),
                           load_device_spec((r / kDefaultDeviceFile).string()), "", arch_file);
}

std::vector<std::pair<std::string, std::string>> default_tree_files(const std::string& root) {
  const BuildDesign d = default_design(root);
  const HlsScripts s = render_scripts(d, hls_sources(root));
  return {{"hls/include/design_config.h", render_design_config(d)},
          {"hls/scripts/run_hls.tcl", s.run_hls_tcl},
          {"hls/scripts/hls_config.cfg", s.hls_config_cfg},
          {"hls/scripts/" + s.link_cfg_name, s.link_cfg}};
}

std::vector<std::string> write_default_tree(const std::string& root) {
  std::vector<std::string> written;
  for (const auto& [rel, text] : default_tree_files(root)) {
    const std::string path = (fs::path(root) / rel).string();
    write_file_atomic(path, text);
    written.push_back(path);
  }
  return written;
}

std::string find_hls_root(const std::string& given) {
  const fs::path top = "hls/kernels/top.cc";
  if (!given.empty()) {
    if (fs::exists(fs::path(given) / top)) return given;
    throw InputError("--hls-root " + given + ": " + (fs::path(given) / top).string() +
                     " not found; give the ttsim checkout folder");
  }
  if (fs::exists(top)) return ".";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      if (fs::exists(dir / top)) return dir.string();
      if (dir == dir.parent_path()) break;
    }
  }
  throw InputError(top.string() + ": HLS kernel sources not found in the working directory nor "
                   "above the ttsim binary (" + (ec ? std::string("unknown") : exe.string()) +
                   "); run from the ttsim checkout or pass --hls-root DIR");
}

namespace {

/// README.md of the build: the design, its instances and memories (from the Machine),
/// the predicted figures and how to build it.
std::string render_readme(const BuildDesign& d, const HlsScripts& s, const std::string& chosen_file,
                          const std::string& fidelity, const std::string& why,
                          const std::optional<JsonView>& metrics, const std::vector<std::string>& notes) {
  const machine::Machine& mc = d.machine;
  std::string r = fmt::format(
      "# HLS build of design `{}`\n\n"
      "Rendered by `ttsim emit` from `{}`: model `{}`, arch `{}`, device `{}` (part `{}`, platform `{}`), "
      "clock {:g} MHz, flow {}.\n\n",
      d.label, chosen_file, d.model.name, d.arch.name, d.device.name, d.device.part, d.device.platform,
      d.arch.clock_mhz, d.hls.btt ? "BTT" : "sequential TT");
  for (const auto& n : notes) r += "- note: " + n + "\n";
  if (!notes.empty()) r += "\n";
  if (metrics) {
    std::string figs;
    for (auto it = metrics->raw().begin(); it != metrics->raw().end(); ++it) {
      if (it.value().is_null()) continue;
      std::string v = it.value().dump();
      if (it.value().is_number()) {
        const double x = it.value().get<double>();
        v = x == std::floor(x) && std::fabs(x) < 1e15 ? fmt::format("{}", static_cast<long long>(x))
                                                       : fmt::format("{:.6g}", x);
      }
      figs += (figs.empty() ? "" : ", ") + it.key() + " " + v;
    }
    r += "Predicted by ttsim (" + fidelity + "): " + figs + "\n\n";
  }
  if (!why.empty()) r += "Why this design: " + why + "\n\n";
  r += "## Kernel instances\n\n"
       "One RTL instance per module (`#pragma HLS ALLOCATION` in `hls/kernels/top.cc`, limits in\n"
       "`design_config.h`), shared by every call site; the top runs one call at a time.\n\n";
  r += machine::instances_markdown(mc, d.device);
  r += "## Memories\n\n"
       "Static arrays of the top (`BIND_STORAGE`, `ARRAY_PARTITION` complete on dim 2); every buffer at a fixed\n"
       "offset for the whole step.\n\n";
  r += machine::memories_markdown(mc, d.device);
  r += fmt::format(
      "## Build\n\n"
      "- C simulation here, no Vitis: `make csim` (g++): `csim_tb` trains a few steps and checks the loss "
      "falls; `reference_tb` runs one step through the bank networks synthesis builds and checks its "
      "losses and gradients against the Eigen reference (reference_step.bin). Vitis `csim_design` runs "
      "`csim_tb` only.\n"
      "- Vitis HLS (classic): `vitis_hls -f hls/scripts/run_hls.tcl` (csim, csynth, cosim, export .xo); the "
      "project goes to `build/hls/{0}/{1}/`, the reports are copied to `reports/{0}/{1}/`.\n"
      "- Vitis unified: `v++ -c --mode hls --config hls/scripts/hls_config.cfg --work_dir build/hls/{0}/{1}`.\n"
      "- Link for the board: `v++ -l -t hw --config hls/scripts/{2} -o ttsim.xclbin ttsim_train_step.xo`.\n"
      "- Feed the csynth/Vivado reports back with `ttsim calibrate` to refine the simulator.\n\n"
      "The kernel sources under hls/ are copies of the ttsim tree's `hls/`; `hls/include/design_config.h` "
      "and `hls/scripts/*` are rendered for this design.\n",
      d.device.name, d.label, s.link_cfg_name);
  return r;
}

}  // namespace

EmitReport emit_design(const Json& chosen, const std::string& chosen_file, const std::string& out_dir,
                       const std::string& hls_root) {
  // Every member is read through JsonView: a wrong type is a ConfigError at its pointer.
  JsonView root(chosen, chosen_file);
  if (!root.is_object()) root.fail("a chosen design object (chosen.json of an explore run)");
  if (!root.has("configs")) root.fail("a chosen design with \"configs\" (no feasible design was chosen?)");
  // An interrupted run's choice is not a finished front's: finish the run (--resume) first.
  if (auto i = root.find("interrupted"); i && i->as_bool()) {  // as_bool: a non-boolean is an error
    i->fail("a design chosen by a finished run (this chosen.json is from an interrupted explore: finish it with "
            "`ttsim explore <sweep> --out <folder> --resume`)",
            "\"interrupted\": true");
  }
  EmitReport report;
  std::string label;
  if (auto n = root.find("name")) label = emit_name(*n);
  std::optional<std::string> part, platform;
  if (auto dev = root.find("device")) {
    if (!dev->is_object()) dev->fail("an object with \"part\" and \"platform\" strings");
    if (auto p = dev->find("part")) part = emit_name(*p);
    if (auto p = dev->find("platform")) platform = emit_name(*p);
  }
  std::string fidelity = "?", why;
  if (auto f = root.find("fidelity")) fidelity = f->as_string();
  if (auto w = root.find("why")) why = w->as_string();
  std::optional<JsonView> metrics = root.find("metrics");
  if (metrics && !metrics->is_object()) metrics->fail("an object of metric name -> number or null");
  JsonView configs = root.at("configs");
  if (!configs.is_object()) configs.fail("an object with \"model\", \"arch\" and \"device\"");
  ModelSpec model = parse_model_spec(configs.at("model").raw(), chosen_file + " (/configs/model)");
  ArchSpec arch = parse_arch_spec(configs.at("arch").raw(), chosen_file + " (/configs/arch)");
  const fs::path src = find_hls_root(hls_root);

  DeviceSpec device;
  std::optional<JsonView> dev_cfg = configs.find("device");
  if (dev_cfg && !dev_cfg->is_object() && !dev_cfg->raw().is_string()) {
    dev_cfg->fail("the resolved device config (an object; an older chosen.json gives the device's name)");
  }
  if (dev_cfg && dev_cfg->is_object()) {
    device = parse_device_spec(dev_cfg->raw(), chosen_file + " (/configs/device)");
    if (part && *part != device.part) {
      throw ConfigError(chosen_file, "/device/part", "the part of /configs/device (\"" + device.part + "\")",
                        Json(*part).dump());
    }
    if (platform && *platform != device.platform) {
      throw ConfigError(chosen_file, "/device/platform",
                        "the platform of /configs/device (\"" + device.platform + "\")", Json(*platform).dump());
    }
  } else {
    // An older chosen.json: /configs/device absent (or only the device's name).
    const std::string why_not = chosen_file + ": no /configs/device (the resolved device config; "
                                "chosen.json of an older explore?)";
    if (!part) throw InputError(why_not + " and no /device/part; re-run ttsim explore");
    if (part->rfind("xcu50", 0) != 0) {
      throw InputError(why_not + " and /device/part \"" + *part +
                       "\" is not the U50's; re-run ttsim explore to record the device");
    }
    fs::path file = src / kDefaultDeviceFile;
    if (!fs::exists(file)) file = kDefaultDeviceFile;
    device = load_device_spec(file.string());
    report.notes.push_back(why_not + ": part " + *part + " is the U50's, so the device is " + file.string());
  }

  const BuildDesign d = make_build_design(std::move(model), std::move(arch), std::move(device), label, chosen_file);
  const std::vector<std::string> sources = hls_sources(src.string());
  const std::string header = render_design_config(d);
  const HlsScripts scripts = render_scripts(d, sources);

  if (d.arch.clock_mhz > d.device.max_clock_mhz) {
    throw InputError(fmt::format("{}: /configs/arch/clock_mhz: expected at most the device's {} MHz ({}), found {}",
                                 chosen_file, d.device.max_clock_mhz, d.device.name, d.arch.clock_mhz));
  }
  // The build is written all or nothing: every file into a fresh sibling folder, which then
  // replaces `out_dir`. An existing `out_dir` must be empty or an earlier emit (it holds
  // kEmitMarker); the kernel tree itself or any other folder with files is refused.
  std::error_code ec;
  // "DIR/", "./DIR" and "." name the folder itself: the temporary sibling and the swap
  // below need its own name and its parent.
  fs::path out = fs::absolute(fs::path(out_dir), ec).lexically_normal();
  if (!out.has_filename() && out.has_parent_path()) out = out.parent_path();
  const fs::path cwd = fs::current_path(ec).lexically_normal();
  if (out == out.root_path() || out.filename().empty()) {
    throw InputError(out_dir + ": --out is the root folder; give a new or empty folder for the build");
  }
  {
    const auto rel = cwd.lexically_relative(out);
    if (!rel.empty() && *rel.begin() != "..") {
      throw InputError(out_dir + ": --out is the working folder or one that holds it (" + out.string() +
                       "); give a new or empty folder for the build");
    }
  }
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) throw InputError(out_dir + ": expected a folder for the HLS build (new, empty or an earlier emit), found a file");
    const bool is_tree = (fs::exists(out / "configs") && !fs::exists(out / kEmitMarker)) || fs::equivalent(out, src, ec);
    const bool empty = fs::is_empty(out, ec);
    if (is_tree || (!empty && !fs::exists(out / kEmitMarker))) {
      throw InputError(out_dir + ": --out " +
                       (is_tree ? std::string("is a ttsim checkout (configs/ inside)")
                                : std::string("holds files that no earlier `ttsim emit` wrote (no ") + kEmitMarker + ")") +
                       "; give a new or empty folder");
    }
  }
  const fs::path parent = out.parent_path();
  fs::create_directories(parent, ec);
  const fs::path tmp = parent / (out.filename().string() + ".emit-" + std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  ec.clear();
  for (const char* sub : {"hls/include", "hls/kernels", "hls/tb", "hls/scripts"}) {
    fs::create_directories(tmp / sub, ec);
    if (ec) throw InputError((tmp / sub).string() + ": cannot create the build folder (" + ec.message() + ")");
  }
  struct TmpGuard {
    fs::path p;
    bool keep = false;
    ~TmpGuard() {
      std::error_code e;
      if (!keep) fs::remove_all(p, e);
    }
  } guard{tmp};
  auto write = [&](const std::string& rel, const std::string& text) {
    write_file_atomic((tmp / rel).string(), text);
    report.files.push_back(rel);
  };
  auto copy = [&](const fs::path& rel) { write(rel.string(), slurp(src / rel)); };
  // The kernel tree: hls/kernels/*.{h,cc}; hls/include/*.{h,cc} but the rendered
  // design_config.h and the test helper spec_check.*; the testbench.
  for (const char* sub : {"kernels", "include"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(src / "hls" / sub)) {
      const std::string name = e.path().filename().string();
      const auto ext = e.path().extension();
      if ((ext != ".h" && ext != ".cc") || name == "design_config.h" || name.rfind("spec_check.", 0) == 0) continue;
      files.push_back(fs::path("hls") / sub / name);
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) copy(f);
  }
  copy(fs::path("hls") / kTestbench);
  copy(fs::path("hls") / kReferenceTestbench);
  write(kReferenceStepFile, reference_step_file(d.model));
  write("hls/include/design_config.h", header);
  write("hls/scripts/run_hls.tcl", scripts.run_hls_tcl);
  write("hls/scripts/hls_config.cfg", scripts.hls_config_cfg);
  write("hls/scripts/" + scripts.link_cfg_name, scripts.link_cfg);
  report.link_cfg = scripts.link_cfg_name;

  std::string make =
      "# C simulation with g++ (no Vitis needed): make csim\n"
      "# csim_tb trains a few steps; reference_tb checks one step's losses and gradients against the\n"
      "# Eigen reference's (" + std::string(kReferenceStepFile) + ", written by ttsim emit).\n"
      "CXX ?= g++\nCXXFLAGS ?= -std=c++17 -O2\nSRCS =";
  for (const auto& s : sources) make += " hls/" + s;
  for (const char* tb : {kTestbench, kReferenceTestbench}) {
    const std::string bin = fs::path(tb).stem().string();
    make += "\n\n" + bin + ": $(SRCS) hls/" + tb + " hls/include/design_config.h\n\t$(CXX) $(CXXFLAGS) -I. $(SRCS) hls/" +
            tb + " -o $@";
  }
  make += "\n\ncsim: csim_tb reference_tb\n\t./csim_tb\n\t./reference_tb " + std::string(kReferenceStepFile) +
          "\n\n.PHONY: csim\n";
  write("Makefile", make);
  write("README.md", render_readme(d, scripts, chosen_file, fidelity, why, metrics, report.notes));
  write(kEmitMarker, "Written by `ttsim emit` from " + chosen_file + "; a later emit may replace this folder.\n");
  report.files.pop_back();
  // Swap: the earlier build moves aside, the new one into place, then the earlier one is
  // removed; a failed move puts the earlier build back, so it is never lost.
  const fs::path old = parent / (out.filename().string() + ".old-" + std::to_string(::getpid()));
  const bool had_old = fs::exists(out, ec);
  if (had_old) {
    fs::remove_all(old, ec);
    fs::rename(out, old, ec);
    if (ec) throw InputError(out_dir + ": cannot move the earlier build aside (" + ec.message() + ")");
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    std::error_code back;
    if (had_old) fs::rename(old, out, back);
    throw InputError(out_dir + ": cannot move the build into place (" + ec.message() + ")" +
                     (had_old ? (back ? "; the earlier build is in " + old.string() : "; the earlier build is kept") : ""));
  }
  guard.keep = true;
  if (had_old) fs::remove_all(old, ec);
  return report;
}

}  // namespace ttsim::dse
