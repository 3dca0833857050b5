#include "dse/emit.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "hls/kernels/model_step.h"
#include "models/model_spec.h"
#include "sim/arch_spec.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

namespace {

std::string int_list(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

const LinearLayerSpec& first_of_kind(const ModelSpec& m, const std::string& kind,
                                     const std::string& file) {
  const LinearLayerSpec* first = nullptr;
  for (const auto& l : m.linears) {
    if (l.kind != kind) continue;
    if (l.format != WeightFormat::kTT) {
      throw InputError(file + ": layer " + l.name +
                       " is not in TT format; the HLS kernel tree implements TT encoder layers only");
    }
    if (!first) {
      first = &l;
    } else if (l.tt.ranks != first->tt.ranks || l.tt.in_factors != first->tt.in_factors ||
               l.tt.out_factors != first->tt.out_factors) {
      throw InputError(file + ": layer " + l.name + " has a TT shape other than " + first->name +
                       "'s; design_config.h holds one shape per layer kind");
    }
  }
  if (!first) throw InputError(file + ": the model has no " + kind + " layer");
  return *first;
}

void set_dims(ttsim_hls::LinearDims* l, const TtShape& t, bool btt) {
  l->tt = true;
  l->btt = btt;
  l->t.d = static_cast<int>(t.in_factors.size());
  l->t.e = static_cast<int>(t.out_factors.size());
  for (int i = 0; i < l->t.d; ++i) l->t.m[i] = static_cast<int>(t.in_factors[i]);
  for (int i = 0; i < l->t.e; ++i) l->t.n[i] = static_cast<int>(t.out_factors[i]);
  for (int i = 0; i <= l->t.d + l->t.e; ++i) l->t.r[i] = static_cast<int>(t.ranks[i]);
  l->in_dim = l->t.M();
  l->out_dim = l->t.N();
}

/// Names pasted into the emitted files (Tcl, cfg, Markdown, C++ comments) must not be
/// able to break out of their line or quoting: [A-Za-z0-9_.+-] only, not empty.
void check_emit_name(const std::string& name, const std::string& file, const std::string& pointer) {
  const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-';
  });
  if (!ok) {
    throw ConfigError(file, pointer,
                      "a non-empty name of the characters A-Z a-z 0-9 _ . + - (it is written into "
                      "run_hls.tcl, hls_config.cfg, link.cfg, README.md and design_config.h)",
                      Json(name).dump());
  }
}

std::string emit_name(const JsonView& v) {
  const std::string name = v.as_string();
  check_emit_name(name, v.file(), v.pointer());
  return name;
}

struct Design {
  ModelSpec model;
  ArchSpec arch;
  bool btt = true;
  ttsim_hls::Layout layout;
};

Design load_design(const Json& configs, const std::string& file) {
  JsonView v(configs, file, "/configs");
  if (!v.is_object()) v.fail("an object with \"model\" and \"arch\"");
  Design d;
  d.model = parse_model_spec(v.at("model").raw(), file + " (/configs/model)");
  d.arch = parse_arch_spec(v.at("arch").raw(), file + " (/configs/arch)");
  // Both names are pasted into run_hls.tcl, README.md and design_config.h comments.
  check_emit_name(d.model.name, file, "/configs/model/name");
  check_emit_name(d.arch.name, file, "/configs/arch/name");
  std::set<Flow> flows;
  for (const char* k : {"attention", "ffn_in", "ffn_out"}) {
    auto it = d.arch.flow_by_kind.find(k);
    flows.insert(it == d.arch.flow_by_kind.end() ? Flow::kBTT : it->second);
  }
  if (flows.size() != 1 || *flows.begin() == Flow::kMM) {
    throw InputError(file + ": /configs/arch/flows: the HLS kernel tree runs every TT layer with "
                     "one flow, btt or tt; this design uses " +
                     [&] {
                       std::string s;
                       for (Flow f : flows) s += std::string(s.empty() ? "" : ", ") + to_string(f);
                       return s;
                     }());
  }
  d.btt = *flows.begin() == Flow::kBTT;
  if (d.model.token_embedding.format != WeightFormat::kTTM) {
    throw InputError(file + ": the HLS kernel tree needs a TTM token embedding");
  }
  ttsim_hls::ModelDims m;
  m.encoders = d.model.encoders;
  m.d_model = static_cast<int>(d.model.d_model);
  m.heads = static_cast<int>(d.model.heads);
  m.ffn_dim = static_cast<int>(d.model.ffn_dim);
  m.seq_len = static_cast<int>(d.model.seq_len);
  m.intents = static_cast<int>(d.model.intents);
  m.slot_tags = static_cast<int>(d.model.slot_tags);
  const auto& ttm = d.model.token_embedding.ttm;
  m.emb.d = static_cast<int>(ttm.cores());
  for (int k = 0; k < m.emb.d && k < ttsim_hls::kMaxTtmFactors; ++k) {
    m.emb.v[k] = static_cast<int>(ttm.vocab_factors[k]);
    m.emb.e[k] = static_cast<int>(ttm.dim_factors[k]);
  }
  for (int k = 0; k <= m.emb.d && k <= ttsim_hls::kMaxTtmFactors; ++k) {
    m.emb.r[k] = static_cast<int>(ttm.ranks[k]);
  }
  const auto& attn = first_of_kind(d.model, "attention", file);
  const auto& fin = first_of_kind(d.model, "ffn_in", file);
  const auto& fout = first_of_kind(d.model, "ffn_out", file);
  for (int e = 0; e < std::min(m.encoders, ttsim_hls::kMaxEncoders); ++e) {
    for (int i = 0; i < 4; ++i) set_dims(&m.lin[e][i], attn.tt, d.btt);
    set_dims(&m.lin[e][4], fin.tt, d.btt);
    set_dims(&m.lin[e][5], fout.tt, d.btt);
  }
  if (!ttsim_hls::make_layout(m, &d.layout)) {
    throw InputError(file + ": the HLS kernel tree cannot lay out this model (at most " +
                     std::to_string(ttsim_hls::kMaxEncoders) +
                     " encoders and 6 factors per TT/TTM shape)");
  }
  return d;
}

std::string tt_block(const char* kind, const LinearLayerSpec& l) {
  const auto& t = l.tt;
  return fmt::format(
      "constexpr int k{0}D = {1}, k{0}E = {2};\n"
      "constexpr int k{0}InFactors[k{0}D] = {{{3}}};\n"
      "constexpr int k{0}OutFactors[k{0}E] = {{{4}}};\n"
      "constexpr int k{0}Ranks[k{0}D + k{0}E + 1] = {{{5}}};\n\n",
      kind, t.in_factors.size(), t.out_factors.size(), int_list(t.in_factors),
      int_list(t.out_factors), int_list(t.ranks));
}

// BIND_STORAGE of an arena: URAM when one partition is at least 2,048 addresses deep
// (the memory planner's default uram_min_depth: half a URAM288 column), else BRAM.
const char* storage(std::int64_t words, int partition) {
  return words / partition >= 2048 ? "uram" : "bram";
}

}  // namespace

std::string design_config_header(const Json& configs, const std::string& file,
                                 const std::string& design_name) {
  const Design d = load_design(configs, file);
  const auto& u = d.arch.units;
  auto lanes = [&](UnitKind k) { return d.arch.unit(k).lanes; };
  int max_lanes = 1;
  for (const auto& x : u) max_lanes = std::max(max_lanes, x.lanes);
  const auto& m = d.model;
  const auto& ttm = m.token_embedding.ttm;
  std::string h = fmt::format(
      "#pragma once\n"
      "// design_config.h — generated by `ttsim emit` for {}model \"{}\" on arch \"{}\"{}.\n"
      "// Same names and format as the tree's hls/include/design_config.h; do not edit by hand,\n"
      "// re-run `ttsim emit --design chosen.json --out DIR` instead.\n\n"
      "namespace ttsim_cfg {{\n\n",
      design_name.empty() ? std::string() : "design \"" + design_name + "\": base ", m.name, d.arch.name,
      design_name.empty() ? "" : " with the design's axis values applied");
  h += fmt::format(
      "constexpr int kEncoders = {};\nconstexpr int kDModel = {};\nconstexpr int kHeads = {};\n"
      "constexpr int kFfnDim = {};\nconstexpr int kSeqLen = {};\nconstexpr int kVocab = {};\n"
      "constexpr int kIntents = {};\nconstexpr int kSlotTags = {};\n\n"
      "constexpr int kMaxFactors = 6;\n\n",
      m.encoders, m.d_model, m.heads, m.ffn_dim, m.seq_len, m.vocab, m.intents, m.slot_tags);
  h += tt_block("Attn", first_of_kind(m, "attention", file));
  h += tt_block("FfnIn", first_of_kind(m, "ffn_in", file));
  h += tt_block("FfnOut", first_of_kind(m, "ffn_out", file));
  h += fmt::format(
      "constexpr int kTtmD = {};\nconstexpr int kTtmVocabFactors[kTtmD] = {{{}}};\n"
      "constexpr int kTtmDimFactors[kTtmD] = {{{}}};\nconstexpr int kTtmRanks[kTtmD + 1] = {{{}}};\n\n",
      ttm.cores(), int_list(ttm.vocab_factors), int_list(ttm.dim_factors), int_list(ttm.ranks));
  h += fmt::format("constexpr bool kUseBtt = {};\n\n", d.btt ? "true" : "false");
  h += fmt::format(
      "constexpr int kContractLanes = {};\nconstexpr int kSoftmaxLanes = {};\n"
      "constexpr int kLayerNormLanes = {};\nconstexpr int kGeluLanes = {};\n"
      "constexpr int kAddLanes = {};\nconstexpr int kLossLanes = {};\nconstexpr int kSgdLanes = {};\n\n",
      lanes(UnitKind::kContraction), lanes(UnitKind::kSoftmax), lanes(UnitKind::kLayerNorm),
      lanes(UnitKind::kGelu), lanes(UnitKind::kElementwise), lanes(UnitKind::kLoss),
      lanes(UnitKind::kUpdate));
  h += fmt::format("constexpr int kParamWords = {};\nconstexpr int kActWords = {};\nconstexpr int kScratchWords = {};\n\n",
                   d.layout.param_words, d.layout.act_words, d.layout.scratch_words);
  h += fmt::format("constexpr int kParamPartition = {};\nconstexpr int kActPartition = {};\n\n", max_lanes,
                   max_lanes);
  h += "}  // namespace ttsim_cfg\n\n";
  h += fmt::format("#define TTSIM_PARAM_STORAGE {}\n#define TTSIM_ACT_STORAGE {}\n",
                   storage(d.layout.param_words, max_lanes), storage(d.layout.act_words, max_lanes));
  return h;
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

void emit_design(const Json& chosen, const std::string& chosen_file, const std::string& out_dir,
                 const std::string& hls_root) {
  // Every member is read through JsonView: a wrong type is a ConfigError at its pointer.
  JsonView root(chosen, chosen_file);
  if (!root.is_object()) root.fail("a chosen design object (chosen.json of an explore run)");
  if (!root.has("configs")) root.fail("a chosen design with \"configs\" (no feasible design was chosen?)");
  std::string design_name;
  if (auto n = root.find("name")) design_name = emit_name(*n);
  const std::string header = design_config_header(root.at("configs").raw(), chosen_file, design_name);
  const Design d = load_design(root.at("configs").raw(), chosen_file);
  std::string part = "xcu50-fsvh2104-2-e", platform = "xilinx_u50_gen3x16_xdma_5_202210_1";
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

  const fs::path src = find_hls_root(hls_root);
  const fs::path out(out_dir);
  std::error_code ec;
  for (const char* sub : {"hls/include", "hls/kernels", "hls/tb"}) fs::create_directories(out / sub, ec);
  if (ec) throw InputError(out_dir + ": cannot create the build folder (" + ec.message() + ")");
  std::vector<std::string> kernel_sources;
  auto copy = [&](const fs::path& rel) {
    std::ifstream in(src / rel, std::ios::binary);
    if (!in) throw InputError((src / rel).string() + ": cannot read");
    std::stringstream s;
    s << in.rdbuf();
    write_file_atomic((out / rel).string(), s.str());
  };
  std::vector<fs::path> kernels;
  for (const auto& e : fs::directory_iterator(src / "hls/kernels")) {
    const auto ext = e.path().extension();
    if (ext == ".h" || ext == ".cc") kernels.push_back(fs::path("hls/kernels") / e.path().filename());
  }
  std::sort(kernels.begin(), kernels.end());
  for (const auto& k : kernels) {
    copy(k);
    if (k.extension() == ".cc") kernel_sources.push_back(k.string());
  }
  // hls/include: the kernel specification and the C-simulation instrumentation the
  // kernels include (design_config.h is generated below; spec_check.* is a test helper).
  std::vector<fs::path> includes;
  for (const auto& e : fs::directory_iterator(src / "hls/include")) {
    const auto name = e.path().filename().string();
    const auto ext = e.path().extension();
    if ((ext != ".h" && ext != ".cc") || name == "design_config.h" || name.rfind("spec_check.", 0) == 0) continue;
    includes.push_back(fs::path("hls/include") / e.path().filename());
  }
  std::sort(includes.begin(), includes.end());
  for (const auto& f : includes) {
    copy(f);
    if (f.extension() == ".cc") kernel_sources.push_back(f.string());
  }
  copy("hls/tb/csim_tb.cc");
  write_file_atomic((out / "hls/include/design_config.h").string(), header);

  const double period_ns = 1000.0 / d.arch.clock_mhz;
  std::string tcl = fmt::format(
      "# Vitis HLS flow for design \"{0}\" (generated by ttsim emit).\n"
      "# Usage: vitis_hls -f run_hls.tcl      (from this folder)\n"
      "open_project -reset ttsim_{0}\n"
      "set_top ttsim_train_step\n",
      d.model.name);
  for (const auto& s : kernel_sources) tcl += "add_files " + s + " -cflags \"-I. -std=c++14\"\n";
  tcl += fmt::format(
      "add_files -tb hls/tb/csim_tb.cc -cflags \"-I. -std=c++14\"\n"
      "open_solution -reset solution1 -flow_target vitis\n"
      "set_part {{{}}}\n"
      "create_clock -period {:.3f} -name default\n"
      "csim_design\ncsynth_design\ncosim_design\n"
      "export_design -format xo -output ttsim_train_step.xo\nexit\n",
      part, period_ns);
  write_file_atomic((out / "run_hls.tcl").string(), tcl);

  std::string cfg = fmt::format("# v++ -c --mode hls --config hls_config.cfg (Vitis unified flow)\npart={}\n\n[hls]\n"
                                "flow_target=vitis\nclock={:g}MHz\nsyn.top=ttsim_train_step\n",
                                part, d.arch.clock_mhz);
  for (const auto& s : kernel_sources) cfg += "syn.file=" + s + "\nsyn.file_cflags=" + s + ",-I. -std=c++14\n";
  cfg += "tb.file=hls/tb/csim_tb.cc\ntb.file_cflags=hls/tb/csim_tb.cc,-I. -std=c++14\n"
         "package.output.format=xo\npackage.output.file=ttsim_train_step.xo\n";
  write_file_atomic((out / "hls_config.cfg").string(), cfg);

  write_file_atomic((out / "link.cfg").string(),
                    fmt::format("# v++ -l --config link.cfg ttsim_train_step.xo -o ttsim.xclbin\n"
                                "platform={}\n\n[connectivity]\nnk=ttsim_train_step:1:ttsim_train_step_1\n"
                                "sp=ttsim_train_step_1.param_io:HBM[0]\n\n[clock]\n"
                                "freqHz={:.0f}:ttsim_train_step_1\n",
                                platform, d.arch.clock_mhz * 1e6));

  std::string make = "# C simulation with g++ (no Vitis needed): make csim\nCXX ?= g++\nCXXFLAGS ?= -std=c++17 -O2\n"
                     "SRCS =";
  for (const auto& s : kernel_sources) make += " " + s;
  make += "\n\ncsim_tb: $(SRCS) hls/tb/csim_tb.cc hls/include/design_config.h\n"
          "\t$(CXX) $(CXXFLAGS) -I. $(SRCS) hls/tb/csim_tb.cc -o $@\n\n"
          "csim: csim_tb\n\t./csim_tb\n\n.PHONY: csim\n";
  write_file_atomic((out / "Makefile").string(), make);

  std::string readme = fmt::format(
      "# HLS build of design `{}`\n\n"
      "Generated by `ttsim emit` from `{}`: base model `{}`, arch `{}`{}.\n\n"
      "- model: {} encoders, d_model {}, TT ranks (attention) [{}], TTM ranks [{}], flow {}\n"
      "- kernels: {} contraction lanes, clock {:g} MHz, part `{}`, platform `{}`\n",
      design_name.empty() ? d.model.name : design_name, chosen_file, d.model.name, d.arch.name,
      design_name.empty() ? "" : " with the design's axis values applied", d.model.encoders, d.model.d_model,
      int_list(first_of_kind(d.model, "attention", chosen_file).tt.ranks), int_list(d.model.token_embedding.ttm.ranks),
      d.btt ? "BTT" : "sequential TT", d.arch.unit(UnitKind::kContraction).lanes, d.arch.clock_mhz, part, platform);
  if (metrics) {
    readme += "- predicted by ttsim (" + fidelity + "): ";
    std::string figs;
    for (auto it = metrics->raw().begin(); it != metrics->raw().end(); ++it) {
      if (!it.value().is_null()) figs += (figs.empty() ? "" : ", ") + it.key() + " " + it.value().dump();
    }
    readme += figs + "\n";
  }
  if (!why.empty()) readme += "- why this design: " + why + "\n";
  readme +=
      "\n## Build\n\n"
      "- C simulation here, no Vitis: `make csim` (g++; the testbench trains a few steps and "
      "checks the loss falls).\n"
      "- Vitis HLS (classic): `vitis_hls -f run_hls.tcl` (csim, csynth, cosim, export .xo); reports land in "
      "`ttsim_" + d.model.name + "/solution1/syn/report/`.\n"
      "- Vitis unified: `v++ -c --mode hls --config hls_config.cfg`.\n"
      "- Link for the board: `v++ -l -t hw --config link.cfg ttsim_train_step.xo -o ttsim.xclbin`.\n"
      "- Feed the csynth/Vivado reports back with `ttsim calibrate` to refine the simulator.\n"
      "\nThe kernel sources under hls/ are copies of the ttsim tree's `hls/`; only "
      "`hls/include/design_config.h` is generated.\n";
  write_file_atomic((out / "README.md").string(), readme);
}

}  // namespace ttsim::dse
