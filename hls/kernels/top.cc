#include "hls/kernels/top.h"

#include "hls/kernels/design_layout.h"
#include "hls/kernels/model_step.h"

namespace ttsim_hls {

namespace {
/// True when layout `L` fits the top's arrays (design_config.h capacities): the parameter
/// port's depth, every float arena, the index arena.
constexpr bool layout_fits(const Layout& L) {
  using namespace ttsim_cfg;
  const int capacity[kFloatArenas] = {kParamWords, kGradWords, kActWords,    kOutWords,   kSaved0Words, kSaved1Words,
                                      kBwdAWords,  kBwdBWords, kBwdCWords,   kChain0Words, kChain1Words};
  if (L.param_words != kParamWords || L.index_words > kIndexWords) return false;
  for (int i = 0; i < kFloatArenas; ++i) {
    if (L.words[i] > capacity[i]) return false;
  }
  return true;
}

void set_tt(LinearDims* l, int dm, const int* inf, int ne, const int* outf,
            const int* ranks) {
  l->tt = true;
  l->btt = ttsim_cfg::kUseBtt;
  l->recompute = ttsim_cfg::kRecomputeMerges;
  l->t.d = dm;
  l->t.e = ne;
  for (int i = 0; i < dm; ++i) l->t.m[i] = inf[i];
  for (int i = 0; i < ne; ++i) l->t.n[i] = outf[i];
  for (int i = 0; i <= dm + ne; ++i) l->t.r[i] = ranks[i];
  l->in_dim = l->t.M();
  l->out_dim = l->t.N();
  
}
}  // namespace

ModelDims design_config_dims() {
  using namespace ttsim_cfg;
  ModelDims m;
  m.encoders = kEncoders;
  m.d_model = kDModel;
  m.heads = kHeads;
  m.ffn_dim = kFfnDim;
  m.seq_len = kSeqLen;
  m.intents = kIntents;
  m.slot_tags = kSlotTags;
  m.recompute_encoders = kRecomputeEncoders;
  m.emb.d = kTtmD;
  for (int k = 0; k < kTtmD; ++k) {
    m.emb.v[k] = kTtmVocabFactors[k];
    m.emb.e[k] = kTtmDimFactors[k];
  }
  for (int k = 0; k <= kTtmD; ++k) m.emb.r[k] = kTtmRanks[k];
  // Factors per layer kind, ranks per layer (design_config.h kLayerRanks).
  for (int e = 0; e < kEncoders; ++e) {
    for (int i = 0; i < 4; ++i) {
      set_tt(&m.lin[e][i], kAttnD, kAttnInFactors, kAttnE, kAttnOutFactors, kLayerRanks[e][i]);
    }
    set_tt(&m.lin[e][4], kFfnInD, kFfnInInFactors, kFfnInE, kFfnInOutFactors, kLayerRanks[e][4]);
    set_tt(&m.lin[e][5], kFfnOutD, kFfnOutInFactors, kFfnOutE, kFfnOutOutFactors, kLayerRanks[e][5]);
  }
  if (kAccumulateByAdd) set_accumulate_by_add(m, kContractLanes, kArenaBanks);
  return m;
}

}  // namespace ttsim_hls

void ttsim_train_step(int mode, int K, const int tokens[ttsim_cfg::kSeqLen],
                      const int slot_tags[ttsim_cfg::kSeqLen], int intent, float lr,
                      float slot_scale, float* param_io, float losses[3]) {
#pragma HLS INTERFACE m_axi port = param_io offset = slave bundle = gmem depth = TTSIM_PARAM_WORDS
#pragma HLS INTERFACE s_axilite port = mode
#pragma HLS INTERFACE s_axilite port = K
#pragma HLS INTERFACE s_axilite port = intent
#pragma HLS INTERFACE s_axilite port = lr
#pragma HLS INTERFACE s_axilite port = slot_scale
#pragma HLS INTERFACE s_axilite port = return
  // Kernel instances: one RTL instance of each module (design_config.h TTSIM_INSTANCES_*),
  // shared by every call site. The glue functions that call the modules (model_step.cc,
  // tt_linear.cc, attention.cc, ttm_embedding.cc) are inlined, so every call site is in
  // this function's scope, where these limits apply.
#pragma HLS ALLOCATION function instances = ttsim_contraction limit = TTSIM_INSTANCES_TTSIM_CONTRACTION
#pragma HLS ALLOCATION function instances = ttsim_softmax limit = TTSIM_INSTANCES_TTSIM_SOFTMAX
#pragma HLS ALLOCATION function instances = ttsim_softmax_grad limit = TTSIM_INSTANCES_TTSIM_SOFTMAX_GRAD
#pragma HLS ALLOCATION function instances = ttsim_layernorm limit = TTSIM_INSTANCES_TTSIM_LAYERNORM
#pragma HLS ALLOCATION function instances = ttsim_layernorm_grad limit = TTSIM_INSTANCES_TTSIM_LAYERNORM_GRAD
#pragma HLS ALLOCATION function instances = ttsim_gelu limit = TTSIM_INSTANCES_TTSIM_GELU
#pragma HLS ALLOCATION function instances = ttsim_gelu_grad limit = TTSIM_INSTANCES_TTSIM_GELU_GRAD
#pragma HLS ALLOCATION function instances = ttsim_add_accumulate limit = TTSIM_INSTANCES_TTSIM_ADD_ACCUMULATE
#pragma HLS ALLOCATION function instances = ttsim_column_sum limit = TTSIM_INSTANCES_TTSIM_COLUMN_SUM
#pragma HLS ALLOCATION function instances = ttsim_transpose limit = TTSIM_INSTANCES_TTSIM_TRANSPOSE
#pragma HLS ALLOCATION function instances = ttsim_loss limit = TTSIM_INSTANCES_TTSIM_LOSS
#pragma HLS ALLOCATION function instances = ttsim_sgd_update limit = TTSIM_INSTANCES_TTSIM_SGD_UPDATE
  // The gradient mode's read-back (model_step.h): one instance for its every call site.
#pragma HLS ALLOCATION function instances = ttsim_store_gradient limit = 1
  using namespace ttsim_cfg;
  using namespace ttsim_hls;
  // The on-chip arenas (the machine description's memories; model_step.h ArenaId): words,
  // BIND_STORAGE impl and banks of each from design_config.h. A float arena is rows of
  // kArenaBanks words with dim 2 completely partitioned: bank k of a row is its own
  // memory, so the kernels' lane accesses address each bank with a constant index
  // (hls/include/banked.h).
  static_assert(kParamPartition == kArenaBanks &&
                    kGradPartition == kArenaBanks &&
                    kActPartition == kArenaBanks &&
                    kOutPartition == kArenaBanks &&
                    kSaved0Partition == kArenaBanks &&
                    kSaved1Partition == kArenaBanks &&
                    kBwdAPartition == kArenaBanks &&
                    kBwdBPartition == kArenaBanks &&
                    kBwdCPartition == kArenaBanks &&
                    kChain0Partition == kArenaBanks &&
                    kChain1Partition == kArenaBanks,
                "every float arena has kArenaBanks banks");
  static float param_mem[(kParamWords + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float grad_mem[(kGradWords + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float act_mem[(kActWords + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float out_mem[(kOutWords + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float saved0_mem[(kSaved0Words + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float saved1_mem[(kSaved1Words + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float bwd_a_mem[(kBwdAWords + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float bwd_b_mem[(kBwdBWords + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float bwd_c_mem[(kBwdCWords + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float chain0_mem[(kChain0Words + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static float chain1_mem[(kChain1Words + kArenaBanks - 1) / kArenaBanks][kArenaBanks];
  static int index_mem[kIndexWords];
#pragma HLS BIND_STORAGE variable = param_mem type = ram_t2p impl = TTSIM_PARAM_STORAGE
#pragma HLS BIND_STORAGE variable = grad_mem type = ram_t2p impl = TTSIM_GRAD_STORAGE
#pragma HLS BIND_STORAGE variable = act_mem type = ram_t2p impl = TTSIM_ACT_STORAGE
#pragma HLS BIND_STORAGE variable = out_mem type = ram_t2p impl = TTSIM_OUT_STORAGE
#pragma HLS BIND_STORAGE variable = saved0_mem type = ram_t2p impl = TTSIM_SAVED0_STORAGE
#pragma HLS BIND_STORAGE variable = saved1_mem type = ram_t2p impl = TTSIM_SAVED1_STORAGE
#pragma HLS BIND_STORAGE variable = bwd_a_mem type = ram_t2p impl = TTSIM_BWD_A_STORAGE
#pragma HLS BIND_STORAGE variable = bwd_b_mem type = ram_t2p impl = TTSIM_BWD_B_STORAGE
#pragma HLS BIND_STORAGE variable = bwd_c_mem type = ram_t2p impl = TTSIM_BWD_C_STORAGE
#pragma HLS BIND_STORAGE variable = chain0_mem type = ram_t2p impl = TTSIM_CHAIN0_STORAGE
#pragma HLS BIND_STORAGE variable = chain1_mem type = ram_t2p impl = TTSIM_CHAIN1_STORAGE
#pragma HLS BIND_STORAGE variable = index_mem type = ram_t2p impl = TTSIM_INDEX_STORAGE
#pragma HLS ARRAY_PARTITION variable = param_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = grad_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = act_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = out_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = saved0_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = saved1_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = bwd_a_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = bwd_b_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = bwd_c_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = chain0_mem type = complete dim = 2
#pragma HLS ARRAY_PARTITION variable = chain1_mem type = complete dim = 2

  const ModelDims dims = design_config_dims();
  // The arena layout is a compile-time constant (design_layout.h, rendered by `ttsim emit`
  // from make_layout of these dims): every offset the glue adds is a constant, read from a
  // ROM where its index is a runtime value (the encoder, the layer); nothing is laid out at
  // run time, and the layout's fit into the arrays above is checked at compile time.
  static constexpr Layout layout = design_layout();
  static_assert(layout_fits(layout), "design_layout.h does not fit the arrays of design_config.h: emit both together");
  losses[2] = 0.0f;
  const Arenas arenas{Ref(param_mem, 0),  Ref(grad_mem, 0),   Ref(act_mem, 0),    Ref(out_mem, 0),
                      Ref(saved0_mem, 0), Ref(saved1_mem, 0), Ref(bwd_a_mem, 0),  Ref(bwd_b_mem, 0),
                      Ref(bwd_c_mem, 0),  Ref(chain0_mem, 0), Ref(chain1_mem, 0),
                      index_mem};
  if (mode == kTtsimLoadParams) {
  param_load:
    for (int i = 0; i < kParamWords; ++i) {
#pragma HLS PIPELINE II = 1
      param_mem[i / kArenaBanks][i % kArenaBanks] = param_io[i];
    }
  grad_clear:
    for (int i = 0; i < kGradWords; ++i) {
#pragma HLS PIPELINE II = 1
      grad_mem[i / kArenaBanks][i % kArenaBanks] = 0.0f;
    }
  } else if (mode == kTtsimStoreParams) {
  param_store:
    for (int i = 0; i < kParamWords; ++i) {
#pragma HLS PIPELINE II = 1
      param_io[i] = param_mem[i / kArenaBanks][i % kArenaBanks];
    }
  } else if (mode == kTtsimTrainStep || mode == kTtsimGradStep) {
    if (K < 1 || K > kSeqLen) return;
    StepSample s;
    s.K = K;
    s.tokens = tokens;
    s.slot_tags = slot_tags;
    s.intent = intent;
    s.slot_scale = slot_scale;
    // One call site of the step for both modes: the gradient mode writes each update
    // group's gradients to param_io where the train mode updates the parameters.
    const StepLosses l = model_train_step(dims, layout, arenas, s, lr, mode == kTtsimGradStep, param_io);
    losses[0] = l.intent;
    losses[1] = l.slot;
  } else {
    return;
  }
  losses[2] = 1.0f;
}
