#pragma once
// design_config.h — the compile-time design point of the HLS training kernels.
//
// Rendered by `ttsim emit` (dse/emit/emit.h) from the machine description (machine/machine.h)
// of design "atis_2enc": model atis_2enc, arch u50_paper, device u50.
// Do not edit by hand: re-render it (`ttsim emit --design chosen.json --out DIR` for a
// chosen design; the tree's own copy is the default design, rewritten by
// `ttsim emit --default-tree`, and a test requires it byte-identical to that rendering).
// Every name below is part of the emitter's contract:
//
//  Model shape    kEncoders, kDModel, kHeads, kFfnDim, kSeqLen, kVocab, kIntents, kSlotTags
//  TT layers      kMaxFactors; per kind (Attn = Q/K/V/O, FfnIn, FfnOut):
//                 k<Kind>InFactors[k<Kind>D], k<Kind>OutFactors[k<Kind>E];
//                 per encoder layer: kLayerRanks[kEncoders][6][2 * kMaxFactors + 1]
//  TTM embedding  kTtmD, kTtmVocabFactors[kTtmD], kTtmDimFactors[kTtmD], kTtmRanks[kTtmD + 1]
//  Flow           kUseBtt (true: BTT flow for every TT layer; false: sequential TT);
//                 kRecomputeMerges (true: every BTT layer recomputes its merges in its
//                 backward pass, hls/kernels/tt_linear.h btt_remerge)
//                 kRecomputeEncoders (true: every encoder but the last runs its forward
//                 again before its backward, hls/kernels/model_step.h ModelDims)
//                 kAccumulateByAdd (true: the accumulating column products run as products
//                 into partials and adds, model_step.h set_accumulate_by_add; the arch's
//                 /contraction/accumulate "by_add")
//                 kFixedLayerForms, kBttRightEndForms (the glue's branches on a layer's
//                 flow and form as constants; false under TTSIM_ANY_LAYOUT, the host tools)
//                 kOmittedLoops (kernel loops no call of this design runs, left out of
//                 the build: ttsim_spec::omitted_loops, kOmitContractColumnAcc = 1 when
//                 kAccumulateByAdd; hls/kernels/contract.h)
//  Lanes          UNROLL factor of each kernel module's pipelined body (the instance's
//                 lanes): kContractLanes, kSoftmaxLanes, kLayerNormLanes, kGeluLanes,
//                 kAddLanes, kLossLanes, kSgdLanes (hls/kernels/modules.cc); kSoftmaxAligned,
//                 kLayerNormAligned, kGeluAligned, kLossAligned, kSgdAligned (aligned lane accesses: every row of their calls starts at a
//                 multiple of their lanes; false under TTSIM_ANY_LAYOUT, the host tools)
//  Arenas         kArenaBanks (banks of every float arena: <stem>_mem[rows][kArenaBanks],
//                 dim 2 completely partitioned, hls/include/banked.h); per on-chip array
//                 <stem>_mem of the top (the arenas of model_step.h ArenaId, and index): k<Stem>Words
//                 (32-bit words), k<Stem>Partition (banks) and TTSIM_<STEM>_STORAGE
//                 (BIND_STORAGE impl token: bram, uram or lutram)
//  m_axi          TTSIM_PARAM_WORDS (depth of the param_io port)
//  Capacity       TTSIM_MAX_ENCODERS (encoders the shape tables hold: kEncoders)
//  Instances      TTSIM_INSTANCES_<MODULE> (ALLOCATION limit of each kernel module)
//  Trip counts    TTSIM_TRIPS_<LOOP>_MIN / _MAX (LOOP_TRIPCOUNT of each kernel loop)
//  II             TTSIM_II_<LOOP> (PIPELINE II of each kernel loop)
//
// Nothing here changes arithmetic: lanes, instances and storage only shape the hardware.

namespace ttsim_cfg {

constexpr int kEncoders = 2;
constexpr int kDModel = 768;
constexpr int kHeads = 12;
constexpr int kFfnDim = 768;
constexpr int kSeqLen = 32;
constexpr int kVocab = 2500;
constexpr int kIntents = 26;
constexpr int kSlotTags = 127;

constexpr int kMaxFactors = 6;

constexpr int kAttnD = 3, kAttnE = 3;
constexpr int kAttnInFactors[kAttnD] = {12, 8, 8};
constexpr int kAttnOutFactors[kAttnE] = {8, 8, 12};

constexpr int kFfnInD = 3, kFfnInE = 3;
constexpr int kFfnInInFactors[kFfnInD] = {12, 8, 8};
constexpr int kFfnInOutFactors[kFfnInE] = {8, 8, 12};

constexpr int kFfnOutD = 3, kFfnOutE = 3;
constexpr int kFfnOutInFactors[kFfnOutD] = {12, 8, 8};
constexpr int kFfnOutOutFactors[kFfnOutE] = {8, 8, 12};

// TT ranks r_0 .. r_{d+e} of every encoder layer, per encoder in the order q, k, v, o,
// ffn_in, ffn_out (r_0 = r_{d+e} = 1; zeros pad each row).
constexpr int kLayerRanks[kEncoders][6][2 * kMaxFactors + 1] = {
    {
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc0.q
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc0.k
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc0.v
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc0.o
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc0.ffn_in
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc0.ffn_out
    },
    {
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc1.q
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc1.k
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc1.v
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc1.o
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc1.ffn_in
        {1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc1.ffn_out
    },
};

constexpr int kTtmD = 3;
constexpr int kTtmVocabFactors[kTtmD] = {10, 10, 25};
constexpr int kTtmDimFactors[kTtmD] = {8, 8, 12};
constexpr int kTtmRanks[kTtmD + 1] = {1, 30, 30, 1};

constexpr bool kUseBtt = true;
constexpr bool kRecomputeMerges = false;
constexpr bool kRecomputeEncoders = false;
constexpr bool kAccumulateByAdd = false;
constexpr unsigned kOmittedLoops = 0u;

// The glue's branches (hls/kernels/model_step.h layer_tt .. layer_dx_by_add, layer_tt_dims;
// tt_linear.h right_end_transposed): the top runs this design's model only, so each branch on
// a layer's flow, form or core counts is a constant and folds at compile time, and the top
// holds the call sites of this design's forms only (the LUT estimate's argument
// multiplexers count those). The host tools, which run any model on this tree
// (TTSIM_ANY_LAYOUT), read them from each layer. kBttRightEndForms: bit 0 some BTT
// layer's right end runs as it is stored, bit 1 some runs transposed
// (ttsim_hls::btt_right_end_transposed).
#if defined(TTSIM_ANY_LAYOUT)
constexpr bool kFixedLayerForms = false;
#else
constexpr bool kFixedLayerForms = true;
#endif
constexpr int kBttRightEndForms = 2;

constexpr int kContractLanes = 64;
constexpr int kSoftmaxLanes = 8;
constexpr int kLayerNormLanes = 8;
constexpr int kGeluLanes = 8;
constexpr int kAddLanes = 8;
constexpr int kLossLanes = 8;
constexpr int kSgdLanes = 8;

// Aligned lane accesses (hls/include/banked.h lane_read<LANES, true>): the layout starts
// every row of these modules' calls at a multiple of their lanes (machine/machine.h
// KernelInstance::lane_aligned, from hls/kernels/model_step.h lane granules), so each lane
// selects among its residue class of banks. The host tools, which run any model on this
// tree, define TTSIM_ANY_LAYOUT and take the general accesses.
#if defined(TTSIM_ANY_LAYOUT)
constexpr bool kSoftmaxAligned = false;
constexpr bool kLayerNormAligned = false;
constexpr bool kGeluAligned = false;
constexpr bool kLossAligned = false;
constexpr bool kSgdAligned = false;
#else
constexpr bool kSoftmaxAligned = true;
constexpr bool kLayerNormAligned = true;
constexpr bool kGeluAligned = true;
constexpr bool kLossAligned = true;
constexpr bool kSgdAligned = true;
#endif

// Banks of every float arena (the largest lane count): a lane access of any module
// finds each of its lanes in a bank of its own (hls/include/banked.h).
constexpr int kArenaBanks = 64;
// Rows of the deepest float arena: every module's arena argument is declared
// [kArenaRows][kArenaBanks] (hls/kernels/modules.h), one interface shape for every
// array a shared instance is bound to.
constexpr int kArenaRows = 4708;

// param_mem (parameters): uram, 301311 words of 32 bits in 64 bank(s) of 4708 words;
//   0 BRAM36, 128 URAM288.
constexpr int kParamWords = 301311;
constexpr int kParamPartition = 64;
// grad_mem (gradients of one update group): bram, 97663 words of 32 bits in 64 bank(s) of 1526 words;
//   128 BRAM36, 0 URAM288.
constexpr int kGradWords = 97663;
constexpr int kGradPartition = 64;
// act_mem (layer inputs; K; TTM temps): uram, 270336 words of 32 bits in 64 bank(s) of 4224 words;
//   0 BRAM36, 128 URAM288.
constexpr int kActWords = 270336;
constexpr int kActPartition = 64;
// out_mem (linear Y, logits; E/o/ffn_out, LN inputs; TTM temps): uram, 176160 words of 32 bits in 64 bank(s) of 2753 words;
//   0 BRAM36, 64 URAM288.
constexpr int kOutWords = 176160;
constexpr int kOutPartition = 64;
// saved0_mem (saved chain steps (even)): bram, 282624 words of 32 bits in 64 bank(s) of 4416 words;
//   320 BRAM36, 0 URAM288.
constexpr int kSaved0Words = 282624;
constexpr int kSaved0Partition = 64;
// saved1_mem (odd saved chain steps; P; LN x^, 1/s): uram, 179872 words of 32 bits in 64 bank(s) of 2811 words;
//   0 BRAM36, 64 URAM288.
constexpr int kSaved1Words = 179872;
constexpr int kSaved1Partition = 64;
// bwd_a_mem (act. gradients dA, dP): bram, 36864 words of 32 bits in 64 bank(s) of 576 words;
//   64 BRAM36, 0 URAM288.
constexpr int kBwdAWords = 36864;
constexpr int kBwdAPartition = 64;
// bwd_b_mem (act. gradients dlogit|dB|dctx|dk): bram, 24576 words of 32 bits in 64 bank(s) of 384 words;
//   64 BRAM36, 0 URAM288.
constexpr int kBwdBWords = 24576;
constexpr int kBwdBPartition = 64;
// bwd_c_mem (act. gradients dv, dF|dq): bram, 49152 words of 32 bits in 64 bank(s) of 768 words;
//   64 BRAM36, 0 URAM288.
constexpr int kBwdCWords = 49152;
constexpr int kBwdCPartition = 64;
// chain0_mem (chain temps (even); first-core copies): bram, 18816 words of 32 bits in 64 bank(s) of 294 words;
//   64 BRAM36, 0 URAM288.
constexpr int kChain0Words = 18816;
constexpr int kChain0Partition = 64;
// chain1_mem (L_d, fwd temps; odd chain temps; stats): bram, 12672 words of 32 bits in 64 bank(s) of 198 words;
//   64 BRAM36, 0 URAM288.
constexpr int kChain1Words = 12672;
constexpr int kChain1Partition = 64;
// index_mem (TTM slice offsets and labels (int32)): bram, 129 words of 32 bits in 1 bank(s) of 129 words;
//   1 BRAM36, 0 URAM288.
constexpr int kIndexWords = 129;
constexpr int kIndexPartition = 1;

}  // namespace ttsim_cfg

// Pragma arguments that must be tokens: the m_axi depth, each arena's BIND_STORAGE impl
// and each kernel module's ALLOCATION limit (RTL instances shared by its call sites).
#define TTSIM_PARAM_WORDS 301311
// Encoders the kernel tree's shape tables hold (hls/kernels/model_step.h kMaxEncoders):
// this design's, so the top's tables are no larger than its model (the host tools
// built by Bazel define their own).
#ifndef TTSIM_MAX_ENCODERS
#define TTSIM_MAX_ENCODERS 2
#endif
#define TTSIM_PARAM_STORAGE uram
#define TTSIM_GRAD_STORAGE bram
#define TTSIM_ACT_STORAGE uram
#define TTSIM_OUT_STORAGE uram
#define TTSIM_SAVED0_STORAGE bram
#define TTSIM_SAVED1_STORAGE uram
#define TTSIM_BWD_A_STORAGE bram
#define TTSIM_BWD_B_STORAGE bram
#define TTSIM_BWD_C_STORAGE bram
#define TTSIM_CHAIN0_STORAGE bram
#define TTSIM_CHAIN1_STORAGE bram
#define TTSIM_INDEX_STORAGE bram
#define TTSIM_INSTANCES_TTSIM_CONTRACTION 1
#define TTSIM_INSTANCES_TTSIM_SOFTMAX 1
#define TTSIM_INSTANCES_TTSIM_SOFTMAX_GRAD 1
#define TTSIM_INSTANCES_TTSIM_LAYERNORM 1
#define TTSIM_INSTANCES_TTSIM_LAYERNORM_GRAD 1
#define TTSIM_INSTANCES_TTSIM_GELU 1
#define TTSIM_INSTANCES_TTSIM_GELU_GRAD 1
#define TTSIM_INSTANCES_TTSIM_ADD_ACCUMULATE 1
#define TTSIM_INSTANCES_TTSIM_COLUMN_SUM 1
#define TTSIM_INSTANCES_TTSIM_TRANSPOSE 1
#define TTSIM_INSTANCES_TTSIM_LOSS 1
#define TTSIM_INSTANCES_TTSIM_SGD_UPDATE 1
// LOOP_TRIPCOUNT bounds of each kernel loop over this design's calls (iterations).
#define TTSIM_TRIPS_CONTRACT_COLUMN_MIN 320
#define TTSIM_TRIPS_CONTRACT_COLUMN_MAX 49152
#define TTSIM_TRIPS_CONTRACT_COLUMN_ACC_MIN 312
#define TTSIM_TRIPS_CONTRACT_COLUMN_ACC_MAX 32768
#define TTSIM_TRIPS_CONTRACT_DOT_MIN 288
#define TTSIM_TRIPS_CONTRACT_DOT_MAX 48768
#define TTSIM_TRIPS_CONTRACT_SCALAR_MIN 1
#define TTSIM_TRIPS_CONTRACT_SCALAR_MAX 1
#define TTSIM_TRIPS_SOFTMAX_MAX_MIN 1536
#define TTSIM_TRIPS_SOFTMAX_MAX_MAX 1536
#define TTSIM_TRIPS_SOFTMAX_EXP_SUM_MIN 1536
#define TTSIM_TRIPS_SOFTMAX_EXP_SUM_MAX 1536
#define TTSIM_TRIPS_SOFTMAX_NORMALIZE_MIN 1536
#define TTSIM_TRIPS_SOFTMAX_NORMALIZE_MAX 1536
#define TTSIM_TRIPS_SOFTMAX_GRAD_DOT_MIN 1536
#define TTSIM_TRIPS_SOFTMAX_GRAD_DOT_MAX 1536
#define TTSIM_TRIPS_SOFTMAX_GRAD_APPLY_MIN 1536
#define TTSIM_TRIPS_SOFTMAX_GRAD_APPLY_MAX 1536
#define TTSIM_TRIPS_LAYERNORM_MEAN_MIN 3072
#define TTSIM_TRIPS_LAYERNORM_MEAN_MAX 3072
#define TTSIM_TRIPS_LAYERNORM_VAR_MIN 3072
#define TTSIM_TRIPS_LAYERNORM_VAR_MAX 3072
#define TTSIM_TRIPS_LAYERNORM_NORMALIZE_MIN 3072
#define TTSIM_TRIPS_LAYERNORM_NORMALIZE_MAX 3072
#define TTSIM_TRIPS_LAYERNORM_GRAD_REDUCE_MIN 3072
#define TTSIM_TRIPS_LAYERNORM_GRAD_REDUCE_MAX 3072
#define TTSIM_TRIPS_LAYERNORM_GRAD_INPUT_MIN 3072
#define TTSIM_TRIPS_LAYERNORM_GRAD_INPUT_MAX 3072
#define TTSIM_TRIPS_LAYERNORM_GRAD_PARAMS_MIN 3072
#define TTSIM_TRIPS_LAYERNORM_GRAD_PARAMS_MAX 3072
#define TTSIM_TRIPS_GELU_MIN 3072
#define TTSIM_TRIPS_GELU_MAX 3072
#define TTSIM_TRIPS_GELU_GRAD_MIN 3072
#define TTSIM_TRIPS_GELU_GRAD_MAX 3072
#define TTSIM_TRIPS_ADD_ACCUMULATE_MIN 4
#define TTSIM_TRIPS_ADD_ACCUMULATE_MAX 3072
#define TTSIM_TRIPS_COLUMN_SUM_MIN 16
#define TTSIM_TRIPS_COLUMN_SUM_MAX 3072
#define TTSIM_TRIPS_TRANSPOSE_MIN 46
#define TTSIM_TRIPS_TRANSPOSE_MAX 8208
#define TTSIM_TRIPS_LOSS_MAX_MIN 64
#define TTSIM_TRIPS_LOSS_MAX_MAX 512
#define TTSIM_TRIPS_LOSS_EXP_SUM_MIN 64
#define TTSIM_TRIPS_LOSS_EXP_SUM_MAX 512
#define TTSIM_TRIPS_LOSS_GRAD_MIN 4
#define TTSIM_TRIPS_LOSS_GRAD_MAX 512
#define TTSIM_TRIPS_SGD_UPDATE_MIN 192
#define TTSIM_TRIPS_SGD_UPDATE_MAX 12208
// PIPELINE II of each kernel loop (cycles), as the simulator prices it.
#define TTSIM_II_CONTRACT_COLUMN 1
#define TTSIM_II_CONTRACT_COLUMN_ACC 1
#define TTSIM_II_CONTRACT_DOT 1
#define TTSIM_II_CONTRACT_SCALAR 1
#define TTSIM_II_SOFTMAX_MAX 1
#define TTSIM_II_SOFTMAX_EXP_SUM 1
#define TTSIM_II_SOFTMAX_NORMALIZE 1
#define TTSIM_II_SOFTMAX_GRAD_DOT 1
#define TTSIM_II_SOFTMAX_GRAD_APPLY 1
#define TTSIM_II_LAYERNORM_MEAN 1
#define TTSIM_II_LAYERNORM_VAR 1
#define TTSIM_II_LAYERNORM_NORMALIZE 1
#define TTSIM_II_LAYERNORM_GRAD_REDUCE 1
#define TTSIM_II_LAYERNORM_GRAD_INPUT 1
#define TTSIM_II_LAYERNORM_GRAD_PARAMS 1
#define TTSIM_II_GELU 1
#define TTSIM_II_GELU_GRAD 1
#define TTSIM_II_ADD_ACCUMULATE 1
#define TTSIM_II_COLUMN_SUM 1
#define TTSIM_II_TRANSPOSE 1
#define TTSIM_II_LOSS_MAX 1
#define TTSIM_II_LOSS_EXP_SUM 1
#define TTSIM_II_LOSS_GRAD 1
#define TTSIM_II_SGD_UPDATE 1
