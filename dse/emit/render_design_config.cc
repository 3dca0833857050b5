// design_config.h of a build (render_design_config, dse/emit/render.h).

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>

#include <fmt/format.h>

#include "core/errors.h"
#include "dse/emit/render.h"
#include "hls/include/kernel_spec.h"

namespace ttsim::dse {

namespace {

template <typename T>
std::string int_list(const T* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

/// The lane constant of design_config.h each kernel module is instantiated with
/// (hls/kernels/modules.cc).
struct LaneConstant {
  const char* constant;
  std::vector<std::string> modules;
  /// The bool constant of their aligned lane accesses (KernelInstance::lane_aligned), or
  /// nullptr where modules.cc instantiates the general ones only.
  const char* aligned = nullptr;
};
const std::vector<LaneConstant>& lane_constants() {
  static const std::vector<LaneConstant> k = {
      {"kContractLanes", {"ttsim_contraction"}},
      {"kSoftmaxLanes", {"ttsim_softmax", "ttsim_softmax_grad"}, "kSoftmaxAligned"},
      {"kLayerNormLanes", {"ttsim_layernorm", "ttsim_layernorm_grad"}, "kLayerNormAligned"},
      {"kGeluLanes", {"ttsim_gelu", "ttsim_gelu_grad"}, "kGeluAligned"},
      {"kAddLanes", {"ttsim_add_accumulate", "ttsim_column_sum", "ttsim_transpose"}},
      {"kLossLanes", {"ttsim_loss"}, "kLossAligned"},
      {"kSgdLanes", {"ttsim_sgd_update"}, "kSgdAligned"},
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

/// The k<Unit>Lanes constants, one line each, from the machine's instances; modules that
/// share a constant must agree, and every module must have one.
std::string lane_lines(const BuildDesign& d) {
  const machine::Machine& mc = d.machine;
  std::map<std::string, const machine::KernelInstance*> by_module;
  for (const auto& k : mc.instances) by_module[k.module] = &k;
  std::string lanes, aligned, any_layout;
  for (const LaneConstant& c : lane_constants()) {
    if (c.aligned) any_layout += fmt::format("constexpr bool {} = false;\n", c.aligned);
  }
  std::size_t covered = 0;
  for (const LaneConstant& c : lane_constants()) {
    const machine::KernelInstance* first = nullptr;
    for (const auto& mod : c.modules) {
      auto it = by_module.find(mod);
      if (it == by_module.end()) continue;
      ++covered;
      if (!first) {
        first = it->second;
      } else if (it->second->lanes != first->lanes ||
                 (c.aligned && it->second->lane_aligned != first->lane_aligned)) {
        throw InputError("design \"" + d.label + "\": modules " + first->module + " (" +
                         std::to_string(first->lanes) + " lanes" + (first->lane_aligned ? ", aligned" : "") +
                         ") and " + mod + " (" + std::to_string(it->second->lanes) + " lanes" +
                         (it->second->lane_aligned ? ", aligned" : "") + ") share " + c.constant +
                         " in hls/kernels/modules.cc");
      }
      if (!c.aligned && it->second->lane_aligned) {
        throw InputError("design \"" + d.label + "\": module " + mod +
                         " is described with aligned lane accesses, which hls/kernels/modules.cc does not "
                         "instantiate for it");
      }
    }
    if (!first) throw InputError(std::string("design_config.h: no kernel module of the machine uses ") + c.constant);
    lanes += fmt::format("constexpr int {} = {};\n", c.constant, first->lanes);
    if (c.aligned) aligned += fmt::format("constexpr bool {} = {};\n", c.aligned, first->lane_aligned ? "true" : "false");
  }
  lanes += "\n"
      "// Aligned lane accesses (hls/include/banked.h lane_read<LANES, true>): the layout starts\n"
      "// every row of these modules' calls at a multiple of their lanes (machine/machine.h\n"
      "// KernelInstance::lane_aligned, from hls/kernels/model_step.h lane granules), so each lane\n"
      "// selects among its residue class of banks. The host tools, which run any model on this\n"
      "// tree, define TTSIM_ANY_LAYOUT and take the general accesses.\n"
      "#if defined(TTSIM_ANY_LAYOUT)\n" +
      any_layout + "#else\n" + aligned + "#endif\n";
  if (covered != mc.instances.size()) {
    for (const auto& k : mc.instances) {
      bool found = false;
      for (const LaneConstant& c : lane_constants()) {
        found = found || std::find(c.modules.begin(), c.modules.end(), k.module) != c.modules.end();
      }
      if (!found) throw InputError("design_config.h: kernel module " + k.module + " has no lane constant");
    }
  }
  return lanes;
}

/// The opening comment (the design and every name of the emitter's contract) and the
/// namespace's opening.
std::string config_preamble(const BuildDesign& d) {
  return fmt::format(
      "#pragma once\n"
      "// design_config.h — the compile-time design point of the HLS training kernels.\n"
      "//\n"
      "// Rendered by `ttsim emit` (dse/emit/emit.h) from the machine description (machine/machine.h)\n"
      "// of design \"{}\": {}, device {}.\n"
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
      "//  Flow           kUseBtt (true: BTT flow for every TT layer; false: sequential TT);\n"
      "//                 kRecomputeMerges (true: every BTT layer recomputes its merges in its\n"
      "//                 backward pass, hls/kernels/tt_linear.h btt_remerge)\n"
      "//                 kRecomputeEncoders (true: every encoder but the last runs its forward\n"
      "//                 again before its backward, hls/kernels/model_step.h ModelDims)\n"
      "//                 kAccumulateByAdd (true: the accumulating column products run as products\n"
      "//                 into partials and adds, model_step.h set_accumulate_by_add; the arch's\n"
      "//                 /contraction/accumulate \"by_add\")\n"
      "//                 kFixedLayerForms, kBttRightEndForms (the glue's branches on a layer's\n"
      "//                 flow and form as constants; false under TTSIM_ANY_LAYOUT, the host tools)\n"
      "//                 kOmittedLoops (kernel loops no call of this design runs, left out of\n"
      "//                 the build: ttsim_spec::omitted_loops, kOmitContractColumnAcc = 1 when\n"
      "//                 kAccumulateByAdd; hls/kernels/contract.h)\n"
      "//  Lanes          UNROLL factor of each kernel module's pipelined body (the instance's\n"
      "//                 lanes): kContractLanes, kSoftmaxLanes, kLayerNormLanes, kGeluLanes,\n"
      "//                 kAddLanes, kLossLanes, kSgdLanes (hls/kernels/modules.cc); kSoftmaxAligned,\n"
      "//                 kLayerNormAligned, kGeluAligned, kLossAligned, kSgdAligned (aligned lane accesses: every row of their calls starts at a\n"
      "//                 multiple of their lanes; false under TTSIM_ANY_LAYOUT, the host tools)\n"
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
      d.label, configs_phrase(d), d.device.name);
}

/// kFixedLayerForms and kBttRightEndForms: the forms the glue branches on, constants of this
/// design (hls/kernels/model_step.h layer_btt, tt_linear.h right_end_transposed).
std::string glue_form_lines(const BuildDesign& d) {
  const ttsim_hls::ModelDims& m = d.hls.dims;
  int forms = 0;
  for (int e = 0; d.hls.btt && e < m.encoders; ++e) {
    for (const ttsim_hls::LinearDims& l : m.lin[e]) {
      if (l.tt && l.btt && l.t.e >= 2) forms |= ttsim_hls::btt_right_end_transposed(l.t) ? 2 : 1;
    }
  }
  return fmt::format(
      "// The glue's branches (hls/kernels/model_step.h layer_tt .. layer_dx_by_add, layer_tt_dims;\n"
      "// tt_linear.h right_end_transposed): the top runs this design's model only, so each branch on\n"
      "// a layer's flow, form or core counts is a constant and folds at compile time, and the top\n"
      "// holds the call sites of this design's forms only (the LUT estimate's argument\n"
      "// multiplexers count those). The host tools, which run any model on this tree\n"
      "// (TTSIM_ANY_LAYOUT), read them from each layer. kBttRightEndForms: bit 0 some BTT\n"
      "// layer's right end runs as it is stored, bit 1 some runs transposed\n"
      "// (ttsim_hls::btt_right_end_transposed).\n"
      "#if defined(TTSIM_ANY_LAYOUT)\n"
      "constexpr bool kFixedLayerForms = false;\n"
      "#else\n"
      "constexpr bool kFixedLayerForms = true;\n"
      "#endif\n"
      "constexpr int kBttRightEndForms = {};\n\n",
      forms);
}

/// Model shape, TT and TTM shapes, ranks per layer and the flow, from the kernel tree's
/// dimensions.
std::string shape_lines(const BuildDesign& d) {
  const ttsim_hls::ModelDims& m = d.hls.dims;
  std::string h = fmt::format(
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
  h += fmt::format("constexpr bool kUseBtt = {};\n", d.hls.btt ? "true" : "false");
  h += fmt::format("constexpr bool kRecomputeMerges = {};\n", d.hls.recompute ? "true" : "false");
  h += fmt::format("constexpr bool kRecomputeEncoders = {};\n", m.recompute_encoders ? "true" : "false");
  h += fmt::format("constexpr bool kAccumulateByAdd = {};\n", d.arch.accumulate_by_add ? "true" : "false");
  h += fmt::format("constexpr unsigned kOmittedLoops = {}u;\n\n", omitted_loops(d.arch));
  h += glue_form_lines(d);
  return h;
}

/// kArenaBanks and each memory's words and partition; its storage macro goes to
/// `storage_macros`.
std::string arena_lines(const BuildDesign& d, std::string& storage_macros) {
  const machine::Machine& mc = d.machine;
  std::int64_t rows = 1;
  for (const machine::Memory& mem : mc.memories) {
    if (mem.partition == mc.partition) rows = std::max(rows, mem.bank_words());
  }
  std::string h = fmt::format(
      "// Banks of every float arena (the largest lane count): a lane access of any module\n"
      "// finds each of its lanes in a bank of its own (hls/include/banked.h).\n"
      "constexpr int kArenaBanks = {};\n"
      "// Rows of the deepest float arena: every module's arena argument is declared\n"
      "// [kArenaRows][kArenaBanks] (hls/kernels/modules.h), one interface shape for every\n"
      "// array a shared instance is bound to.\n"
      "constexpr int kArenaRows = {};\n\n",
      mc.partition, rows);
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
  return h;
}

/// The macros pragmas take as tokens: m_axi depth, encoder capacity, storage, ALLOCATION.
std::string pragma_macros(const BuildDesign& d, const std::string& storage_macros) {
  const machine::Machine& mc = d.machine;
  std::string h =
      "// Pragma arguments that must be tokens: the m_axi depth, each arena's BIND_STORAGE impl\n"
      "// and each kernel module's ALLOCATION limit (RTL instances shared by its call sites).\n";
  h += fmt::format("#define TTSIM_PARAM_WORDS {}\n", mc.param_words);
  h += fmt::format(
      "// Encoders the kernel tree's shape tables hold (hls/kernels/model_step.h kMaxEncoders):\n"
      "// this design's, so the top's tables are no larger than its model (the host tools\n"
      "// built by Bazel define their own).\n"
      "#ifndef TTSIM_MAX_ENCODERS\n#define TTSIM_MAX_ENCODERS {}\n#endif\n",
      d.hls.dims.encoders);
  h += storage_macros;
  for (const machine::KernelInstance& k : mc.instances) {
    h += fmt::format("#define TTSIM_INSTANCES_{} {}\n", upper(k.module), k.count);
  }
  return h;
}

// LOOP_TRIPCOUNT of every kernel loop (the loops' bounds are runtime shapes): the
// smallest and largest trip over the step's calls, so that csynth reports the design's
// latency range. A loop no call runs gets 1..1.
std::string trip_macros(const machine::Machine& mc) {
  std::string h = "// LOOP_TRIPCOUNT bounds of each kernel loop over this design's calls (iterations).\n";
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
  return h;
}

// PIPELINE II of every kernel loop: the II its instance is scheduled at (the largest
// over the calls). A loop no call runs that the build keeps (kOmittedLoops leaves out only
// what ttsim_spec::omitted_loops names) is still synthesized in its module: it gets the II
// its own access sites allow at the module's lanes on the arenas' banks
// (ttsim_spec::own_array_res_mii), so that its pragma is one the schedule can meet.
std::string ii_macros(const machine::Machine& mc, int banks) {
  std::string h = "// PIPELINE II of each kernel loop (cycles), as the simulator prices it.\n";
  for (int ki = 0; ki < ttsim_spec::kKernelSpecCount; ++ki) {
    const ttsim_spec::KernelSpec& ks = ttsim_spec::kKernelSpecs[ki];
    for (int li = 0; li < ks.n_loops; ++li) {
      int ii = 0, lanes = 1;
      for (const machine::KernelInstance& k : mc.instances) {
        if (k.module == ks.module) lanes = std::max(lanes, k.lanes);
        for (const machine::LoopTrips& t : k.loops) {
          if (t.loop == ks.loops[li].name) ii = std::max(ii, t.ii);
        }
      }
      if (ii == 0) ii = ttsim_spec::own_array_res_mii(ks.loops[li], lanes, banks);
      h += fmt::format("#define TTSIM_II_{} {}\n", upper(ks.loops[li].name), ii);
    }
  }
  return h;
}

}  // namespace

std::string render_design_config(const BuildDesign& d) {
  const std::string lanes = lane_lines(d);  // its refusals first
  std::string h = config_preamble(d);
  h += shape_lines(d);
  h += lanes + "\n";
  std::string storage_macros;
  h += arena_lines(d, storage_macros);
  h += "\n}  // namespace ttsim_cfg\n\n";
  h += pragma_macros(d, storage_macros);
  h += trip_macros(d.machine);
  h += ii_macros(d.machine, arena_banks(d.arch));
  return h;
}

}  // namespace ttsim::dse
