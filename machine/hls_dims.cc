#include "machine/hls_dims.h"

#include <algorithm>
#include <type_traits>

#include "core/errors.h"
#include "hls/host/hls_model.h"
#include "hls/host/host_capacity.h"

namespace ttsim::machine {

namespace {

const LinearLayerSpec& first_of_kind(const ModelSpec& m, const std::string& kind, const std::string& file) {
  const LinearLayerSpec* first = nullptr;
  for (const auto& l : m.linears) {
    if (l.kind != kind) continue;
    if (l.format != WeightFormat::kTT) {
      throw InputError(file + ": layer " + l.name +
                       " is not in TT format; the HLS kernel tree implements TT encoder layers only");
    }
    if (!first) {
      first = &l;
    } else if (l.tt.in_factors != first->tt.in_factors || l.tt.out_factors != first->tt.out_factors) {
      auto shape = [](const LinearLayerSpec& x) {
        auto list = [](const std::vector<std::int64_t>& v) {
          std::string t;
          for (std::int64_t f : v) t += (t.empty() ? "" : ",") + std::to_string(f);
          return "[" + t + "]";
        };
        return list(x.tt.in_factors) + "x" + list(x.tt.out_factors);
      };
      throw InputError(file + ": /overrides: layer " + l.name + " has TT factors " + shape(l) + ", " + first->name +
                       " has " + shape(*first) + "; design_config.h holds one factorisation per layer kind (an "
                       "override may set a layer's rank, not its factors)");
    }
  }
  if (!first) throw InputError(file + ": the model has no " + kind + " layer");
  return *first;
}

// Every field of `*l` (entries past the factors and ranks zero, as value-initialised; set
// one by one: assigning a value-initialised LinearDims compiles to a stack temporary and
// a copy that stalls on store forwarding).
void set_dims(ttsim_hls::LinearDims* l, const TtShape& t, bool btt) {
  constexpr int kF = ttsim_hls::kMaxTtFactors;
  l->tt = true;
  l->btt = btt;
  const int d = static_cast<int>(t.in_factors.size());
  const int e = static_cast<int>(t.out_factors.size());
  l->t.d = d;
  l->t.e = e;
  for (int i = 0; i < kF; ++i) l->t.m[i] = i < d ? static_cast<int>(t.in_factors[i]) : 0;
  for (int i = 0; i < kF; ++i) l->t.n[i] = i < e ? static_cast<int>(t.out_factors[i]) : 0;
  for (int i = 0; i <= 2 * kF; ++i) l->t.r[i] = i <= d + e ? static_cast<int>(t.ranks[i]) : 0;
  l->in_dim = l->t.M();
  l->out_dim = l->t.N();
}

/// The encoder layer kinds (no string built per call).
const std::string kEncoderKinds[] = {"attention", "ffn_in", "ffn_out"};

/// True when the encoder layers run the BTT flow, false for TT: the HLS kernel tree runs
/// them all with one flow, which must not be MM (else InputError naming `arch_file`).
bool single_tt_flow_is_btt(const ArchSpec& arch, const std::string& arch_file) {
  // The distinct flows of the three layer kinds (a flag per Flow, in enum order).
  constexpr int kFlows = 3;  // Flow::kMM, kTT, kBTT
  static_assert(static_cast<int>(Flow::kMM) == 0 && static_cast<int>(Flow::kBTT) == kFlows - 1);
  bool uses[kFlows] = {};
  for (const std::string& k : kEncoderKinds) {
    auto it = arch.flow_by_kind.find(k);
    uses[static_cast<int>(it == arch.flow_by_kind.end() ? Flow::kBTT : it->second)] = true;
  }
  const int distinct = uses[0] + uses[1] + uses[2];
  if (distinct != 1 || uses[static_cast<int>(Flow::kMM)]) {
    std::string s;
    for (int f = 0; f < kFlows; ++f) {
      if (uses[f]) s += std::string(s.empty() ? "" : ", ") + to_string(static_cast<Flow>(f));
    }
    throw InputError(arch_file + ": /flows: the HLS kernel tree runs every TT layer with one flow, btt or tt; "
                     "this design uses " + s);
  }
  return uses[static_cast<int>(Flow::kBTT)];
}

/// Checks what the HLS top requires of the model besides its layers: batch 1 and a TTM
/// token embedding of at most kMaxTtmFactors cores.
void check_hls_batch_and_embedding(const ModelSpec& model, const std::string& file) {
  if (model.batch != 1) {
    throw InputError(file + ": /batch: expected 1: the HLS top trains on one sample per step (ttsim_train_step "
                     "takes one token sequence), found " + std::to_string(model.batch));
  }
  if (model.token_embedding.format != WeightFormat::kTTM) {
    throw InputError(file + ": /token_embedding/format: the HLS kernel tree needs a TTM token embedding");
  }
  const std::size_t cores = model.token_embedding.ttm.cores();
  if (cores < 2 || cores > static_cast<std::size_t>(ttsim_hls::kMaxTtmFactors)) {
    throw InputError(file + ": /token_embedding/vocab_factors: the HLS kernel tree's TTM embedding takes 2 to " +
                     std::to_string(ttsim_hls::kMaxTtmFactors) + " cores, found " + std::to_string(cores));
  }
}

/// As `m = ModelDims()`, rewriting of the shape table (92 KB in a 128-encoder host build)
/// only the encoders `m` held: the entries past them are as value-initialised in every
/// ModelDims, since one starts so and hls_design_into sets lin[e] for e < encoders only.
void clear_dims(ttsim_hls::ModelDims& m) {
  static_assert(std::is_trivially_copyable<ttsim_hls::ModelDims>::value, "cleared member by member below");
  const int held = std::clamp(m.encoders, 0, ttsim_hls::kMaxEncoders);
  for (int e = 0; e < held; ++e) {
    for (ttsim_hls::LinearDims& l : m.lin[e]) l = ttsim_hls::LinearDims();
  }
  m.encoders = m.d_model = m.heads = m.ffn_dim = m.seq_len = m.intents = m.slot_tags = 0;
  m.emb = ttsim_hls::TtmDims();
  m.recompute_encoders = false;
  m.intent_dx_by_add = false;
}

/// Sets m's dimensions and TTM embedding shape from `model` (entries past the cores zero).
void set_model_dims(ttsim_hls::ModelDims& m, const ModelSpec& model) {
  m.encoders = model.encoders;
  m.d_model = static_cast<int>(model.d_model);
  m.heads = static_cast<int>(model.heads);
  m.ffn_dim = static_cast<int>(model.ffn_dim);
  m.seq_len = static_cast<int>(model.seq_len);
  m.intents = static_cast<int>(model.intents);
  m.slot_tags = static_cast<int>(model.slot_tags);
  const auto& ttm = model.token_embedding.ttm;
  m.emb.d = static_cast<int>(ttm.cores());
  for (int k = 0; k < ttsim_hls::kMaxTtmFactors; ++k) {
    m.emb.v[k] = k < m.emb.d ? static_cast<int>(ttm.vocab_factors[k]) : 0;
    m.emb.e[k] = k < m.emb.d ? static_cast<int>(ttm.dim_factors[k]) : 0;
  }
  for (int k = 0; k <= ttsim_hls::kMaxTtmFactors; ++k) {
    m.emb.r[k] = k <= m.emb.d ? static_cast<int>(ttm.ranks[k]) : 0;
  }
}

/// Sets the encoder layers of `m` (ModelSpec::linears order: q, k, v, o, ffn_in, ffn_out per
/// encoder, each with its own ranks) after checking each kind is TT with one factorisation
/// the kernel tree takes.
void set_encoder_dims(ttsim_hls::ModelDims& m, const ModelSpec& model, const std::string& file, bool btt) {
  const auto& attn = first_of_kind(model, kEncoderKinds[0], file);
  const auto& fin = first_of_kind(model, kEncoderKinds[1], file);
  const auto& fout = first_of_kind(model, kEncoderKinds[2], file);
  for (const LinearLayerSpec* l : {&attn, &fin, &fout}) {
    if (l->tt.in_factors.size() > static_cast<std::size_t>(ttsim_hls::kMaxTtFactors) ||
        l->tt.out_factors.size() > static_cast<std::size_t>(ttsim_hls::kMaxTtFactors)) {
      throw InputError(file + ": layer " + l->name + ": the HLS kernel tree takes at most " +
                       std::to_string(ttsim_hls::kMaxTtFactors) + " input and output factors");
    }
  }
  for (int e = 0; e < std::min(m.encoders, ttsim_hls::kMaxEncoders); ++e) {
    for (int i = 0; i < ttsim_hls::kLinearsPerEncoder; ++i) {
      const std::size_t at = static_cast<std::size_t>(e * ttsim_hls::kLinearsPerEncoder + i);
      if (at >= model.linears.size() || model.linears[at].encoder != e) {
        throw InputError(file + ": the model's linear layers are not q, k, v, o, ffn_in, ffn_out per encoder");
      }
      set_dims(&m.lin[e][i], model.linears[at].tt, btt);
    }
  }
}

}  // namespace

HlsDesign hls_design(const ModelSpec& model, const ArchSpec& arch, const std::string& arch_file,
                     const std::string& model_file) {
  HlsDesign d;
  hls_design_into(d, model, arch, arch_file, model_file);
  return d;
}

void hls_design_into(HlsDesign& d, const ModelSpec& model, const ArchSpec& arch, const std::string& arch_file,
                     const std::string& model_file) {
  clear_dims(d.dims);
  const std::string& file = !model_file.empty()           ? model_file
                            : !model.source_file.empty() ? model.source_file
                                                         : model.name;
  if (model.encoders < 1) {
    throw InputError(file + ": /encoders: the HLS kernel tree takes 1 to " + std::to_string(ttsim_hls::kMaxEncoders) +
                     " encoders, found " + std::to_string(model.encoders));
  }
  d.btt = single_tt_flow_is_btt(arch, arch_file);
  if (arch.recompute_merges && !d.btt) {
    throw InputError(arch_file + ": /memory/recompute: \"" +
                     recompute_choice(arch.recompute_merges, arch.recompute_encoders) +
                     "\" recomputes the merges of the BTT flow, "
                     "but the arch runs its TT layers with the tt flow (/flows), which has none");
  }
  d.recompute = arch.recompute_merges;
  if (arch.recompute_encoders && model.encoders < 2) {
    throw InputError(arch_file + ": /memory/recompute: \"" + recompute_choice(arch.recompute_merges, true) +
                     "\" recomputes every encoder but the last, but " + file + " has " +
                     std::to_string(model.encoders) + " encoder" + (model.encoders == 1 ? "" : "s") +
                     ": nothing to recompute (use \"" + recompute_choice(arch.recompute_merges, false) + "\")");
  }
  check_hls_batch_and_embedding(model, file);
  check_hls_linears(model, file);
  ttsim_hls::ModelDims& m = d.dims;
  set_model_dims(m, model);
  m.recompute_encoders = arch.recompute_encoders;
  set_encoder_dims(m, model, file, d.btt);
  for (int e = 0; e < std::min(m.encoders, ttsim_hls::kMaxEncoders); ++e) {
    for (int i = 0; i < ttsim_hls::kLinearsPerEncoder; ++i) m.lin[e][i].recompute = d.recompute;
  }
  if (arch.accumulate_by_add) {
    ttsim_hls::set_accumulate_by_add(m, arch.unit(UnitKind::kContraction).lanes, arena_banks(arch));
  }
  if (m.encoders > ttsim_hls::kMaxEncoders) {
    throw InputError(file + ": /encoders: the HLS kernel tree takes 1 to " + std::to_string(ttsim_hls::kMaxEncoders) +
                     " encoders, found " + std::to_string(m.encoders));
  }
  // Arena sizes in 64-bit arithmetic before make_layout adds them up in int.
  check_hls_host_capacity(m, file);
  if (!ttsim_hls::make_layout(m, &d.layout)) {
    throw InputError(file + ": the HLS kernel tree cannot lay out this model (at most " +
                     std::to_string(ttsim_hls::kMaxEncoders) +
                     " encoders and 6 factors per TT/TTM shape)");
  }
}

}  // namespace ttsim::machine
