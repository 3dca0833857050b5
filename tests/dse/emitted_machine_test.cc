// What is emitted is what is described (and simulated): for every Pareto design of
// configs/sweeps/atis_u50.json (explored at analytic fidelity), `ttsim emit` writes the
// build into a temporary folder and this test reads the emitted sources as text —
// design_config.h, hls/kernels/top.cc, hls/kernels/modules.cc, the glue sources,
// hls_config.cfg and run_hls.tcl; the renderer is not called — and compares what they
// build with machine::describe of the same design:
//  - per kernel module: the ALLOCATION limit in top.cc (through its design_config.h macro)
//    equals the instance count, and the lane constant modules.cc instantiates it with
//    equals the instance's lanes, and the aligned-access constant it is instantiated with
//    (design_config.h, the build's branch: TTSIM_ANY_LAYOUT undefined) equals the
//    instance's lane_aligned;
//  - per arena: the array top.cc declares, its size, BIND_STORAGE impl and banks
//    ARRAY_PARTITION factor equal the memory's words, storage and partition; the m_axi
//    depth equals Machine::param_words;
//  - Σ over modules of (parsed limit × DSPs of one instance at the parsed lanes, from the
//    kernel specification and hw/arch_spec.h loop_dsp and setup_dsp) equals the design's "dsp" metric,
//    and the blocks of the parsed arrays its "bram36" and "uram288" metrics;
//  - the scripts synthesize the emitted sources for the device's part at the arch's clock;
//  - the emitted schedule has no overlapping calls (see SequentialTop below), and the
//    emitted kernel tree, run for the design's model in C simulation, calls the kernel
//    loops in the schedule's order with the same trip counts (see TaskOrder below);
//  - the build explore emits for its chosen design from memory (<out>/hls_build) equals,
//    file for file and byte for byte, the one `ttsim emit --design <out>/chosen.json`
//    writes from the file.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "dse/emit/emit.h"
#include "dse/run/explore.h"
#include "dse/run_setup.h"
#include "hls/kernels/modules.h"
#include "hw/loop_nest.h"
#include "machine/machine.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "sim/step_sim.h"
#include "tests/hls/probed_step.h"
#include "tests/testing/code_of.h"
#include "tests/testing/tmp_dir.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;
using ttsim::testing::code_of;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using ::ttsim::testing::tmp_dir;

/// Every match of `re` in `text`, as its capture groups.
std::vector<std::vector<std::string>> all_matches(const std::string& text, const std::string& re) {
  std::vector<std::vector<std::string>> out;
  const std::regex r(re);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), r); it != std::sregex_iterator(); ++it) {
    std::vector<std::string> g;
    for (std::size_t i = 1; i < it->size(); ++i) g.push_back((*it)[i].str());
    out.push_back(g);
  }
  return out;
}

/// What an emitted build says, read from its sources.
struct Emitted {
  std::map<std::string, std::string> macros;   ///< design_config.h #define NAME VALUE
  std::map<std::string, std::int64_t> ints;    ///< design_config.h constexpr int NAME = V
  std::map<std::string, std::int64_t> limit;   ///< module → ALLOCATION limit (top.cc)
  std::map<std::string, std::int64_t> lanes;   ///< module → lanes (modules.cc template argument)
  std::map<std::string, bool> bools;           ///< design_config.h constexpr bool NAME = V (the build's branch)
  std::map<std::string, bool> aligned;         ///< module → aligned lane accesses (modules.cc template argument)
  std::map<std::string, std::int64_t> uints;   ///< design_config.h constexpr unsigned NAME = Vu
  std::map<std::string, unsigned> omitted;     ///< module → loops it leaves out (modules.cc template argument)
  struct Array {
    std::int64_t words = -1;
    std::int64_t rows = -1;   ///< depth of each bank
    std::int64_t banks = 1;   ///< dim 2 of a banked array; 1 for a one-dimensional one
    std::string storage;
    std::string partition_type;  ///< "" when the array carries no ARRAY_PARTITION
    std::int64_t partition = 1;  ///< memories the array becomes
  };
  std::map<std::string, Array> arrays;  ///< static arrays of the top
  std::int64_t maxi_depth = -1;
  /// Function definitions of the kernel .cc files other than modules.cc: name → body.
  std::map<std::string, std::string> functions;
};

/// The value of a pragma argument or array size: an integer literal, a design_config.h
/// constant or macro. -1 (and a test failure) when it is none.
std::int64_t value_of(const Emitted& e, const std::string& token, const std::string& where) {
  if (!token.empty() && std::all_of(token.begin(), token.end(), ::isdigit)) return std::stoll(token);
  if (auto it = e.ints.find(token); it != e.ints.end()) return it->second;
  if (auto it = e.macros.find(token); it != e.macros.end()) return value_of(e, it->second, where);
  ADD_FAILURE() << where << ": " << token << " is neither a number nor defined in design_config.h";
  return -1;
}

/// Function definitions (name → body text) of a C++ source: a `{` outside any function
/// whose head (the text since the previous `;`, `{` or `}`) has a parameter list opens
/// a function body; namespace and initializer braces do not.
std::map<std::string, std::string> function_bodies(const std::string& code) {
  std::map<std::string, std::string> out;
  struct Open {
    bool function;
    std::size_t start;
    std::string name;
  };
  std::vector<Open> stack;
  std::size_t head = 0;
  const std::regex name_re(R"(([A-Za-z_]\w*)\s*\($)");
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '{') {
      const bool in_function = std::any_of(stack.begin(), stack.end(), [](const Open& o) { return o.function; });
      std::string h = code.substr(head, i - head);
      bool function = false;
      std::string name;
      const std::size_t paren = h.find('(');
      if (!in_function && paren != std::string::npos && h.find("namespace") == std::string::npos) {
        std::smatch m;
        const std::string before = h.substr(0, paren + 1);
        if (std::regex_search(before, m, name_re)) {
          function = true;
          name = m[1].str();
        }
      }
      stack.push_back({function, i + 1, name});
      head = i + 1;
    } else if (c == '}') {
      if (!stack.empty()) {
        const Open o = stack.back();
        stack.pop_back();
        if (o.function) out[o.name] += code.substr(o.start, i - o.start);
      }
      head = i + 1;
    } else if (c == ';') {
      head = i + 1;
    }
  }
  return out;
}

Emitted read_emitted(const fs::path& out) {
  Emitted e;
  const std::string cfg = slurp(out / "hls/include/design_config.h");
  for (const auto& g : all_matches(cfg, R"(#define (\w+) (\S+))")) e.macros[g[0]] = g[1];
  for (const auto& g : all_matches(cfg, R"(constexpr int (\w+) = (-?[0-9]+);)")) e.ints[g[0]] = std::stoll(g[1]);
  for (const auto& g : all_matches(cfg, R"(constexpr unsigned (\w+) = ([0-9]+)u;)")) e.uints[g[0]] = std::stoll(g[1]);
  // The aligned-access constants and kFixedLayerForms: false for the host tools
  // (TTSIM_ANY_LAYOUT), the design's values in the #else branch the build compiles.
  const auto any = all_matches(cfg, R"(#if defined\(TTSIM_ANY_LAYOUT\)\n([^#]*)#else\n([^#]*)#endif)");
  EXPECT_FALSE(any.empty()) << "design_config.h: no TTSIM_ANY_LAYOUT block";
  for (const auto& block : any) {
    for (const auto& g : all_matches(block[0], R"(constexpr bool (\w+) = (\w+);)")) {
      EXPECT_EQ(g[1], "false") << g[0] << " under TTSIM_ANY_LAYOUT";
    }
    for (const auto& g : all_matches(block[1], R"(constexpr bool (\w+) = (\w+);)")) e.bools[g[0]] = g[1] == "true";
  }
  EXPECT_TRUE(e.bools.count("kFixedLayerForms") && e.bools["kFixedLayerForms"])
      << "design_config.h: the build's glue branches on the design's constants (kFixedLayerForms)";

  const std::string top = code_of(slurp(out / "hls/kernels/top.cc"));
  for (const auto& g : all_matches(top, R"(#pragma HLS ALLOCATION function instances = (\w+) limit = (\w+))")) {
    // The gradient mode's read-back (ttsim_store_gradient, model_step.h) is limited to one
    // instance too, but is no kernel module of the priced step: checked apart.
    if (g[0] == "ttsim_store_gradient") {
      EXPECT_EQ(g[1], "1") << "the gradient read-back has one instance";
      continue;
    }
    e.limit[g[0]] = value_of(e, g[1], "top.cc ALLOCATION " + g[0]);
  }
  // One-dimensional arrays (words) and banked arrays: rows of `banks` words, declared
  // [(words + banks - 1) / banks][banks].
  for (const auto& g : all_matches(top, R"(static (?:float|int) (\w+)\[(\w+)\];)")) {
    e.arrays[g[0]].words = value_of(e, g[1], "top.cc array " + g[0]);
    e.arrays[g[0]].rows = e.arrays[g[0]].words;
  }
  for (const auto& g :
       all_matches(top, R"(static (?:float|int) (\w+)\[\((\w+) \+ (\w+) - 1\) / (\w+)\]\[(\w+)\];)")) {
    Emitted::Array& a = e.arrays[g[0]];
    a.words = value_of(e, g[1], "top.cc array " + g[0]);
    const std::int64_t banks = value_of(e, g[4], "top.cc array " + g[0] + " banks");
    EXPECT_EQ(g[2], g[4]) << g[0];
    EXPECT_EQ(g[3], g[4]) << g[0];
    a.rows = (a.words + banks - 1) / banks;
    a.banks = banks;
  }
  for (const auto& g : all_matches(top, R"(#pragma HLS BIND_STORAGE variable = (\w+) type = \w+ impl = (\w+))")) {
    const auto it = e.macros.find(g[1]);
    e.arrays[g[0]].storage = it == e.macros.end() ? g[1] : it->second;
  }
  for (const auto& g :
       all_matches(top, R"(#pragma HLS ARRAY_PARTITION variable = (\w+) type = complete dim = 2)")) {
    // Dim 2 (the banks) completely partitioned: one memory per bank.
    e.arrays[g[0]].partition_type = "complete dim 2";
    e.arrays[g[0]].partition = e.arrays[g[0]].banks;
  }
  const auto depth = all_matches(top, R"(#pragma HLS INTERFACE m_axi port = param_io [^\n]*depth = (\w+))");
  if (depth.size() == 1) e.maxi_depth = value_of(e, depth[0][0], "top.cc m_axi depth");

  // modules.cc: each module's body instantiates its kernel template with a lane constant.
  const std::string modules = code_of(slurp(out / "hls/kernels/modules.cc"));
  for (const auto& [name, body] : function_bodies(modules)) {
    e.functions[name] += body;
    const auto lanes = all_matches(body, R"(<ttsim_cfg::(\w+), kArenaBanks(?:, ttsim_cfg::(\w+))?>)");
    if (lanes.size() == 1) {
      e.lanes[name] = value_of(e, lanes[0][0], "modules.cc " + name);
      e.aligned[name] = false;
      e.omitted[name] = 0;
      // The third template argument: a bool (aligned lane accesses) or the contraction's
      // omitted-loop mask (kOmittedLoops).
      if (!lanes[0][1].empty() && e.uints.count(lanes[0][1])) {
        e.omitted[name] = static_cast<unsigned>(e.uints.at(lanes[0][1]));
      } else if (!lanes[0][1].empty()) {
        const auto it = e.bools.find(lanes[0][1]);
        EXPECT_NE(it, e.bools.end()) << "modules.cc " << name << ": no design_config.h bool " << lanes[0][1];
        e.aligned[name] = it != e.bools.end() && it->second;
      }
    }
  }
  // The glue: every other kernel .cc, and the inline wrappers of modules.h through which
  // it calls the modules.
  for (const auto& f : fs::directory_iterator(out / "hls/kernels")) {
    const bool glue = f.path().extension() == ".cc" && f.path().filename() != "modules.cc";
    if (!glue && f.path().filename() != "modules.h") continue;
    for (auto& [name, body] : function_bodies(code_of(slurp(f.path())))) e.functions[name] += body;
  }
  return e;
}

/// DSPs of one instance of `module` with `lanes` lanes, from the kernel specification:
/// Σ loop_dsp over the loops of its TaskOp (modules.h table) that the module runs — for a
/// module named after one of its op's loops (ttsim_add → loop "add", ttsim_column_sum →
/// "column_sum"), the loops of that loop's variant; else every loop of the op — plus the
/// 32-bit multipliers of their trip-count setup (hw/arch_spec.h setup_dsp). `banks`: the
/// emitted arenas' (a kWindow operator per lane window); `omitted`: the loops the emitted
/// module leaves out (its kOmittedLoops template argument), counted nothing.
std::int64_t module_dsp(const std::string& module, int lanes, const DeviceSpec& device, int banks, unsigned omitted) {
  const TtsimModuleName* entry = nullptr;
  for (const auto& m : kTtsimModules) {
    if (module == m.module) entry = &m;
  }
  if (!entry) {
    ADD_FAILURE() << module << " is not a kernel module of hls/kernels/modules.h";
    return 0;
  }
  int op = -1;
  for (int k = 0; k < kTaskOpCount; ++k) {
    if (std::string(entry->task_op) == to_string(static_cast<TaskOp>(k))) op = k;
  }
  const ttsim_spec::KernelSpec& ks = kernel_spec(static_cast<TaskOp>(op));
  int variant = -1;
  for (int i = 0; i < ks.n_loops; ++i) {
    if ("ttsim_" + std::string(ks.loops[i].name) == module) variant = ks.loops[i].variant;
  }
  std::int64_t dsp = setup_dsp(ks, variant, OperatorDsp(device), omitted);
  for (int i = 0; i < ks.n_loops; ++i) {
    if ((variant >= 0 && ks.loops[i].variant != variant) || !ttsim_spec::loop_built(ks.loops[i], omitted)) continue;
    dsp += loop_dsp(ks.loops[i], lanes, device, banks);
  }
  return dsp;
}

void expect_emitted_is_described(const fs::path& out, const Json& point, const DeviceSpec& device) {
  const std::string name = point.at("name").get<std::string>();
  SCOPED_TRACE(name);
  const ModelSpec model = parse_model_spec(point.at("configs").at("model"), name + " model");
  const ArchSpec arch = parse_arch_spec(point.at("configs").at("arch"), name + " arch");
  const TaskGraph graph = build_training_graph(model, graph_options(arch, 0));
  const machine::Machine m = machine::describe(model, arch, device, graph);
  const Emitted e = read_emitted(out);

  // Kernel instances: ALLOCATION limit and lanes per module, both ways.
  std::int64_t arena_banks_emitted = 1;  // the float arenas' banks (kArenaBanks), read from top.cc
  for (const auto& [name, a] : e.arrays) arena_banks_emitted = std::max(arena_banks_emitted, a.banks);
  std::set<std::string> described;
  std::int64_t dsp = 0;
  for (const machine::KernelInstance& k : m.instances) {
    described.insert(k.module);
    ASSERT_TRUE(e.limit.count(k.module)) << "top.cc has no ALLOCATION limit for " << k.module;
    ASSERT_TRUE(e.lanes.count(k.module)) << "modules.cc defines no " << k.module << " with a lane constant";
    EXPECT_EQ(e.limit.at(k.module), k.count) << k.module;
    EXPECT_EQ(e.lanes.at(k.module), k.lanes) << k.module;
    EXPECT_EQ(e.aligned.at(k.module), k.lane_aligned) << k.module << ": emitted aligned lane accesses vs described";
    dsp += e.limit.at(k.module) * module_dsp(k.module, static_cast<int>(e.lanes.at(k.module)), device,
                                             static_cast<int>(arena_banks_emitted), e.omitted.at(k.module));
  }
  // Every loop an instance's calls run is one its emitted module builds (kOmittedLoops).
  for (const machine::KernelInstance& k : m.instances) {
    for (const machine::LoopTrips& t : k.loops) {
      const ttsim_spec::LoopSpec* l = ttsim_spec::find_loop(to_string(k.op), t.loop.c_str());
      ASSERT_NE(l, nullptr) << t.loop;
      EXPECT_TRUE(ttsim_spec::loop_built(*l, e.omitted.at(k.module))) << k.module << " omits " << t.loop << ", which its calls run";
    }
  }
  // PIPELINE II: every loop of every instance carries the II the simulator prices for it
  // (the instance's worst call), through its design_config.h macro.
  std::map<std::string, std::int64_t> pipeline_ii;
  for (const auto& f : fs::directory_iterator(out / "hls/kernels")) {
    if (f.path().extension() != ".h") continue;
    const std::string text = code_of(slurp(f.path()));
    for (const auto& g : all_matches(text, R"((\w+):\s*for\s*\([^\n]*\n\s*#pragma HLS PIPELINE II = (\w+))")) {
      const auto it = e.macros.find(g[1]);
      pipeline_ii[g[0]] = it != e.macros.end() ? std::stoll(it->second) : std::stoll(g[1]);
    }
  }
  for (const machine::KernelInstance& k : m.instances) {
    for (const machine::LoopTrips& t : k.loops) {
      ASSERT_TRUE(pipeline_ii.count(t.loop)) << "no PIPELINE pragma found for loop " << t.loop;
      EXPECT_EQ(pipeline_ii.at(t.loop), t.ii) << t.loop << ": emitted PIPELINE II vs the instance's priced II";
    }
  }
  for (const auto& [module, limit] : e.limit) EXPECT_TRUE(described.count(module)) << "extra ALLOCATION " << module;
  for (const auto& [module, lanes] : e.lanes) EXPECT_TRUE(described.count(module)) << "undescribed module " << module;
  EXPECT_EQ(static_cast<double>(dsp), point.at("metrics").at("dsp").get<double>())
      << "Σ ALLOCATION limit × DSPs per instance of the emitted build vs the design's dsp metric";

  // Arenas: every memory is a static array of the top with its words, storage and
  // partition; and the top has no other array.
  std::set<std::string> arrays;
  for (const machine::Memory& mem : m.memories) {
    arrays.insert(mem.array);
    ASSERT_TRUE(e.arrays.count(mem.array)) << "top.cc declares no " << mem.array;
    const Emitted::Array& a = e.arrays.at(mem.array);
    EXPECT_EQ(a.words, mem.words) << mem.array;
    EXPECT_EQ(a.rows, mem.bank_words()) << mem.array;  // depth of each bank
    EXPECT_EQ(a.storage, machine::to_string(mem.storage)) << mem.array;
    // The parsed ARRAY_PARTITION type and factor are the description's.
    EXPECT_EQ(a.partition_type.empty() ? std::string("none") : a.partition_type,
              machine::to_string(mem.partition_type)) << mem.array;
    if (mem.partition_type == machine::Partition::kCompleteDim2) EXPECT_EQ(a.banks, mem.partition) << mem.array;
    EXPECT_EQ(a.partition, mem.partition) << mem.array;
  }
  for (const auto& [array, a] : e.arrays) EXPECT_TRUE(arrays.count(array)) << "undescribed array " << array;
  // One interface shape per shared instance: every module's arena argument is declared with
  // the rows of the deepest banked arena (modules.h TTSIM_ARENA, design_config.h kArenaRows).
  std::int64_t deepest = 0;
  for (const machine::Memory& mem : m.memories) {
    if (mem.partition == m.partition) deepest = std::max(deepest, mem.bank_words());
  }
  ASSERT_TRUE(e.ints.count("kArenaRows")) << "design_config.h has no kArenaRows";
  EXPECT_EQ(e.ints.at("kArenaRows"), deepest);
  EXPECT_EQ(e.maxi_depth, m.param_words);
  // The blocks the emitted arrays take (their parsed storage, banks and bank depth, 32-bit
  // words, bound ram_t2p) are the BRAM36 / URAM288 figures the run reported for the design.
  // Counted here from the primitives (UG573), not with the simulator's block arithmetic: in
  // true dual port a 32-bit bank of d words takes ceil(d / 1024) RAMB36 (36×1K; the 36×512
  // RAMB18 mode is simple dual port only), and ceil(d / 4096) URAM288 (72×4K).
  std::int64_t bram36 = 0, uram288 = 0;
  const std::string top_cc = code_of(slurp(out / "hls/kernels/top.cc"));
  for (const auto& [array, a] : e.arrays) {
    EXPECT_NE(top_cc.find("variable = " + array + " type = ram_t2p"), std::string::npos) << array << " is not ram_t2p";
    const std::int64_t depth = std::max<std::int64_t>(1, a.rows);
    if (a.storage == "uram") uram288 += a.banks * ((depth + 4095) / 4096);
    if (a.storage == "bram") bram36 += a.banks * ((depth + 1023) / 1024);
  }
  EXPECT_EQ(static_cast<double>(bram36), point.at("metrics").at("bram36").get<double>()) << "BRAM36 of the emitted arrays";
  EXPECT_EQ(static_cast<double>(uram288), point.at("metrics").at("uram288").get<double>()) << "URAM288 of the emitted arrays";

  // Scripts: part, clock and the synthesized sources (which include top.cc and modules.cc).
  const std::string cfg = slurp(out / "hls/scripts/hls_config.cfg");
  const std::string tcl = slurp(out / "hls/scripts/run_hls.tcl");
  const auto part = all_matches(cfg, R"((?:^|\n)part=(\S+))");
  ASSERT_EQ(part.size(), 1u);
  EXPECT_EQ(part[0][0], device.part);
  EXPECT_EQ(all_matches(tcl, R"(\nset part (\S+))").at(0).at(0), device.part);
  const auto clock = all_matches(cfg, R"(\nclock=(\S+)ns)");
  ASSERT_EQ(clock.size(), 1u);
  EXPECT_NEAR(std::stod(clock[0][0]), 1000.0 / arch.clock_mhz, 1e-3);
  EXPECT_NEAR(std::stod(all_matches(tcl, R"(\nset clock_period (\S+))").at(0).at(0)), 1000.0 / arch.clock_mhz, 1e-3);
  EXPECT_EQ(all_matches(cfg, R"(\nsyn\.top=(\S+))").at(0).at(0), "ttsim_train_step");
  std::vector<std::string> cfg_files, tcl_files;
  for (const auto& g : all_matches(cfg, R"(\nsyn\.file=\.\./(\S+))")) cfg_files.push_back(g[0]);
  const auto block = all_matches(tcl, R"(set kernel_sources \{([^}]*)\})");
  ASSERT_EQ(block.size(), 1u);
  std::istringstream words(block[0][0]);
  for (std::string w; words >> w;) tcl_files.push_back(w);
  EXPECT_EQ(cfg_files, tcl_files);
  for (const auto& f : cfg_files) EXPECT_TRUE(fs::exists(out / "hls" / f)) << f;
  for (const char* f : {"kernels/top.cc", "kernels/modules.cc"}) {
    EXPECT_NE(std::find(cfg_files.begin(), cfg_files.end(), f), cfg_files.end()) << f;
  }

  // SequentialTop — no two calls overlap. How the emitted code establishes it:
  //  (1) no concurrency construct anywhere in the emitted kernel tree: no DATAFLOW region,
  //      no hls::task / hls::stream / STREAM pragma, so the top is one sequential region;
  //  (2) every function that reaches a kernel module call (directly or through other glue)
  //      is inlined, so every call site is in the top's sequential region under its
  //      ALLOCATION limits (one instance per module shared by all its call sites);
  //  (3) in a sequential region Vitis HLS overlaps two calls only when they are independent
  //      and touch no common memory port; every module call takes its operands as the
  //      top's shared arenas and offsets (ttsim_hls::Arenas), so the calls run in program
  //      order, which the machine's schedule is: one task per call, no overlap groups.
  for (const char* sub : {"hls/kernels", "hls/include"}) {
    for (const auto& f : fs::directory_iterator(out / sub)) {
      const std::string code = code_of(slurp(f.path()));
      for (const char* c : {"DATAFLOW", "dataflow", "hls::task", "hls::stream", "HLS STREAM", "HLS stream"}) {
        EXPECT_EQ(code.find(c), std::string::npos) << f.path() << " has " << c;
      }
    }
  }
  std::set<std::string> reaches;  // functions that reach a module call
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [fn, body] : e.functions) {
      if (reaches.count(fn)) continue;
      bool calls = false;
      for (const auto& [module, limit] : e.limit) calls = calls || std::regex_search(body, std::regex("\\b" + module + "\\s*\\("));
      for (const auto& callee : reaches) calls = calls || std::regex_search(body, std::regex("\\b" + callee + "\\s*\\("));
      if (calls) grew = reaches.insert(fn).second;
    }
  }
  EXPECT_TRUE(reaches.count("ttsim_train_step")) << "the top calls no kernel module";
  EXPECT_GT(reaches.size(), 10u);
  const std::regex inline_on("#pragma HLS INLINE\\s*(\\n|$)");
  const std::regex inline_off("#pragma HLS INLINE\\s+off");
  for (const auto& fn : reaches) {
    if (fn == "ttsim_train_step") continue;
    EXPECT_TRUE(std::regex_search(e.functions.at(fn), inline_on))
        << fn << " reaches a kernel module call but is not inlined into the top";
    EXPECT_FALSE(std::regex_search(e.functions.at(fn), inline_off)) << fn << " is INLINE off";
  }
  // Every module itself is kept a function (ALLOCATION does not apply to an inlined one).
  for (const auto& [module, limit] : e.limit) {
    ASSERT_TRUE(e.functions.count(module)) << module << " not defined in the emitted sources";
    EXPECT_TRUE(std::regex_search(e.functions.at(module), inline_off))
        << module << " has no INLINE off: Vitis may inline it and build one copy per call site";
  }
  // TaskOrder — the machine runs the tasks one at a time in its schedule's order, and the
  // emitted top calls the kernels in that order. The emitted kernel tree is, byte for byte,
  // the one compiled into this test (design_config.h and design_layout.h aside: its lanes,
  // sizes, storage, II and arena offsets shape the hardware and the lane loops' trip counts,
  // not which call comes next; the chosen design's `make csim` checks its layout end to end), so
  // one step of this design's model and flows through it in C simulation, under the access
  // probe, gives the emitted build's sequence of kernel loop invocations; the schedule's
  // tasks, in order, must run the same loops with the same trip counts (at the compiled
  // lanes) in the same sequence.
  EXPECT_TRUE(m.schedule.overlap_groups.empty());
  ASSERT_EQ(m.schedule.order.size(), graph.tasks.size());
  for (const char* sub : {"hls/kernels", "hls/include"}) {
    for (const auto& f : fs::directory_iterator(out / sub)) {
      if (f.path().filename() == "design_config.h" || f.path().filename() == "design_layout.h") continue;
      const fs::path checked_in = fs::path(sub) / f.path().filename();
      ASSERT_TRUE(fs::exists(checked_in)) << f.path() << " is not in the kernel tree compiled here";
      EXPECT_EQ(slurp(f.path()), slurp(checked_in)) << f.path() << " differs from " << checked_in;
    }
  }
  std::map<std::string, bool> btt_by_kind;
  for (const auto& [kind, flow] : arch.flow_by_kind) btt_by_kind[kind] = flow == Flow::kBTT;
  // The probed step depends on the model, the flows, the recomputation and the
  // accumulate_by_add choices (which calls accumulate through a partial and an add), not on
  // the lanes or the clock the front's designs differ in otherwise: probed once per such
  // structure, its choices made for this design's machine.
  static std::map<std::string, testing::ProbedStep> probed;
  const GraphOptions go = graph_options(arch, 0);
  std::vector<char> choices;
  accumulate_by_add_choices(model, go, choices);
  std::string key = point.at("configs").at("model").dump() + (arch.recompute_merges ? " merges" : "") +
                    (arch.recompute_encoders ? " encoders" : "") + " by_add " + std::string(choices.begin(), choices.end());
  for (const auto& [kind, btt] : btt_by_kind) key += " " + kind + (btt ? "=btt" : "=tt");
  auto it = probed.find(key);
  if (it == probed.end()) {
    it = probed
             .emplace(key, testing::run_probed_step(model, btt_by_kind, model.seq_len, arch.recompute_merges,
                                                    arch.recompute_encoders,
                                                    {go.by_add.contraction_lanes, go.by_add.arena_banks}))
             .first;
  }
  const testing::ProbedStep& step = it->second;
  const std::vector<std::string> want = testing::graph_loop_sequence(graph, m.schedule.order);
  std::string around;
  const std::size_t at = testing::first_difference(want, step.sequence, &around);
  EXPECT_EQ(want.size(), step.sequence.size()) << "loop invocations of the schedule vs the emitted step";
  EXPECT_EQ(at, std::min(want.size(), step.sequence.size()))
      << "the schedule's order differs from the emitted step's calls at invocation " << at << around;
}

// Every file under `dir` (recursively), path relative to it -> bytes.
std::map<std::string, std::string> tree_files(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = slurp(e.path());
  }
  return files;
}

// The chosen design's build explore wrote from memory (<out>/hls_build) and the one
// emit_design writes from <out>/chosen.json hold the same files with the same bytes.
void expect_memory_and_file_builds_equal(const std::string& out_dir, const std::string& dir) {
  const fs::path from_memory = fs::path(out_dir) / "hls_build";
  ASSERT_TRUE(fs::exists(from_memory / "hls/include/design_config.h")) << "explore emitted no build";
  const fs::path from_file = fs::path(dir) / "from_chosen_json";
  const std::string chosen_file = out_dir + "/chosen.json";
  emit_design(load_json_file(chosen_file), chosen_file, from_file.string(), ".");
  const auto a = tree_files(from_memory), b = tree_files(from_file);
  EXPECT_GT(a.size(), 20u);
  for (const auto& [rel, bytes] : a) {
    ASSERT_TRUE(b.count(rel)) << rel << " emitted from memory only";
    EXPECT_TRUE(bytes == b.at(rel)) << rel << " differs between the build from memory and from chosen.json";
  }
  for (const auto& [rel, bytes] : b) EXPECT_TRUE(a.count(rel)) << rel << " emitted from chosen.json only";
}

/// Emits front point `p` of a results.json (its configs, the run's device) as explore's
/// chosen.json would, into dir/build_<id>; returns that folder.
fs::path emit_point(const Json& p, const Json& device_json, const DeviceSpec& device, const std::string& dir) {
  Json configs = p.at("configs");
  configs["device"] = device_json;
  const Json chosen{{"name", p.at("name")},         {"configs", configs},
                    {"device", {{"part", device.part}, {"platform", device.platform}}},
                    {"metrics", p.at("metrics")}, {"fidelity", p.at("fidelity")}};
  const fs::path out = fs::path(dir) / ("build_" + std::to_string(p.at("id").get<std::int64_t>()));
  emit_design(chosen, p.at("name").get<std::string>() + ".json", out.string(), ".");
  return out;
}

/// `make csim` of an emitted build passes: its training steps, and one step equal to the
/// Eigen reference's (losses 1e-5, every gradient tensor 1e-4, the updated parameters 1e-6,
/// through the lane networks synthesis builds: hls/tb/reference_tb.cc).
void expect_csim_passes(const std::string& build) {
  const std::string cmd = "make -s -C '" + build + "' csim CXXFLAGS='-std=c++17 -O1' > '" + build +
                          "/csim.log' 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(build + "/csim.log");
  EXPECT_NE(slurp(build + "/csim.log").find("reference_tb: PASS"), std::string::npos) << slurp(build + "/csim.log");
}

// A design whose accumulating products run by add (configs/arch/u50_unit_lanes.json,
// /contraction/accumulate "by_add"): the emitted contraction leaves column_acc out
// (kOmittedLoops), its DSPs counted from the emitted sources without that loop equal the
// simulator's, and the build passes C simulation against the reference.
TEST(EmittedMachine, AByAddDesignOmitsColumnAccAndIsBuiltAsDescribed) {
  const std::string dir = tmp_dir("emitted_by_add");
  Json sweep = load_json_file("configs/sweeps/atis_u50_unit_lanes.json");
  sweep["name"] = "atis_u50_unit_lanes_base";
  sweep["axes"] = Json{{"sequence_length", Json::array({"padded"})}};
  sweep["fidelity"] = "analytic";
  write_file_atomic(dir + "/sweep.json", sweep.dump(1));
  const auto setup = make_run_setup(dir + "/sweep.json");
  ExploreOptions o;
  o.out_dir = dir + "/out";
  const ExploreReport r = run_explore(*setup->eval, dir + "/sweep.json", o);
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);
  const Json results = load_json_file(o.out_dir + "/results.json");
  ASSERT_EQ(results.at("front").size(), 1u);
  const Json& p = results.at("front").at(0);
  ASSERT_EQ(p.at("configs").at("arch").at("contraction").at("accumulate"), "by_add");
  const DeviceSpec device = parse_device_spec(results.at("device"), "results.json (/device)");
  const fs::path out = emit_point(p, results.at("device"), device, dir);
  expect_emitted_is_described(out, p, device);
  const Emitted e = read_emitted(out);
  EXPECT_EQ(e.uints.at("kOmittedLoops"), ttsim_spec::kOmitContractColumnAcc);
  EXPECT_EQ(e.omitted.at("ttsim_contraction"), ttsim_spec::kOmitContractColumnAcc);
  expect_csim_passes(out.string());
}

TEST(EmittedMachine, EveryParetoDesignOfAtisU50IsBuiltAsDescribed) {
  const auto start = std::chrono::steady_clock::now();
  const std::string dir = tmp_dir("emitted_machine");
  // The shipped sweep, its accuracy table included, at analytic fidelity: the SystemC stage
  // changes no machine and, on this one-call-at-a-time machine, no cycle (the SystemC and
  // analytic steps agree), so the front and the chosen design are the shipped run's.
  Json sweep = load_json_file("configs/sweeps/atis_u50.json");
  sweep["fidelity"] = "analytic";
  write_file_atomic(dir + "/sweep.json", sweep.dump(1));
  const auto setup = make_run_setup(dir + "/sweep.json");
  ExploreOptions o;
  o.out_dir = dir + "/out";
  o.extra_outputs = standard_extra_outputs(*setup, ".");  // emits the chosen design, from memory
  const ExploreReport r = run_explore(*setup->eval, dir + "/sweep.json", o);
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);
  ASSERT_FALSE(r.final.front.empty());
  expect_memory_and_file_builds_equal(o.out_dir, dir);

  const Json results = load_json_file(o.out_dir + "/results.json");
  // results.json records the defaults the run priced with, at the sweep's clock.
  ASSERT_EQ(results.at("defaults_used").size(), 1u);
  EXPECT_EQ(results.at("defaults_used").at(0).at("clock_mhz").get<double>(), 100.0);
  EXPECT_EQ(results.at("defaults_used").at(0).at("memory_model").at("ports_per_bank").get<int>(), 2);
  EXPECT_TRUE(results.at("defaults_used").at(0).at("device").at("operator_latency_cycles").contains("fadd"));
  const Json device_json = results.at("device");
  const DeviceSpec device = parse_device_spec(device_json, "results.json (/device)");
  int emitted = 0;
  bool chosen_emitted = false, recompute_csim = false;
  for (const Json& p : results.at("front")) {  // the front's points in full
    const fs::path out = emit_point(p, device_json, device, dir);
    expect_emitted_is_described(out, p, device);
    // The chosen design's build, and the first front design's that recomputes its encoders,
    // pass `make csim` (expect_csim_passes).
    const std::string recompute = p.at("configs").at("arch").at("memory").value("recompute", "none");
    const bool first_recomputing = !recompute_csim && recompute.rfind("encoders", 0) == 0;
    if (p.at("id") == results.at("chosen") || first_recomputing) {
      chosen_emitted = chosen_emitted || p.at("id") == results.at("chosen");
      recompute_csim = recompute_csim || first_recomputing;
      expect_csim_passes(out.string());
    }
    ++emitted;
  }
  EXPECT_EQ(emitted, static_cast<int>(r.final.front.size()));
  EXPECT_TRUE(chosen_emitted) << "the chosen design " << results.at("chosen") << " was not emitted";
  EXPECT_TRUE(recompute_csim) << "no front design recomputes its encoders";
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d Pareto designs emitted and compared in %.1f s\n", emitted, seconds);
}

}  // namespace
}  // namespace ttsim::dse
