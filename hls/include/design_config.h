#pragma once
// design_config.h — the compile-time design point of the HLS training kernels.
//
// Default: the 2-encoder ATIS preset (configs/models/atis_2enc.json), TT rank 12 on
// [12,8,8]x[8,8,12], TTM rank 30 on [10,10,25]x[8,8,12]. `ttsim emit` generates this
// file for a chosen design; it must stay a plain list of constexpr values (plus the
// storage macros at the end, which pragmas need as tokens). Every name below is part
// of the emitter's contract:
//
//  Model shape    kEncoders, kDModel, kHeads, kFfnDim, kSeqLen, kVocab, kIntents, kSlotTags
//  TT layers      kMaxFactors; per kind (Attn = Q/K/V/O, FfnIn, FfnOut):
//                 k<Kind>InFactors[k<Kind>D], k<Kind>OutFactors[k<Kind>E],
//                 k<Kind>Ranks[k<Kind>D + k<Kind>E + 1]  (r_0 = r_{d+e} = 1)
//  TTM embedding  kTtmD, kTtmVocabFactors[kTtmD], kTtmDimFactors[kTtmD], kTtmRanks[kTtmD + 1]
//  Flow           kUseBtt (true: BTT flow for every TT layer; false: sequential TT)
//  Lanes (UNROLL factor of each kernel's pipelined body, >= 1)
//                 kContractLanes, kSoftmaxLanes, kLayerNormLanes, kGeluLanes,
//                 kAddLanes, kLossLanes, kSgdLanes
//  Capacities     kParamWords, kActWords, kScratchWords (FP32 words of the on-chip
//                 parameter (= gradient) arena, saved-activation arena and temporary
//                 arena of the top function; equal to ttsim_hls::Layout totals for
//                 the shapes above, checked by tests/hls/design_config_test)
//  Storage        TTSIM_PARAM_STORAGE, TTSIM_ACT_STORAGE (BIND_STORAGE impl tokens:
//                 bram or uram), kParamPartition / kActPartition (cyclic
//                 ARRAY_PARTITION factors of the arenas, >= the largest lane count)
//
// Nothing here changes arithmetic: lanes, II and storage only shape the hardware.

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
constexpr int kAttnRanks[kAttnD + kAttnE + 1] = {1, 12, 12, 12, 12, 12, 1};

constexpr int kFfnInD = 3, kFfnInE = 3;
constexpr int kFfnInInFactors[kFfnInD] = {12, 8, 8};
constexpr int kFfnInOutFactors[kFfnInE] = {8, 8, 12};
constexpr int kFfnInRanks[kFfnInD + kFfnInE + 1] = {1, 12, 12, 12, 12, 12, 1};

constexpr int kFfnOutD = 3, kFfnOutE = 3;
constexpr int kFfnOutInFactors[kFfnOutD] = {12, 8, 8};
constexpr int kFfnOutOutFactors[kFfnOutE] = {8, 8, 12};
constexpr int kFfnOutRanks[kFfnOutD + kFfnOutE + 1] = {1, 12, 12, 12, 12, 12, 1};

constexpr int kTtmD = 3;
constexpr int kTtmVocabFactors[kTtmD] = {10, 10, 25};
constexpr int kTtmDimFactors[kTtmD] = {8, 8, 12};
constexpr int kTtmRanks[kTtmD + 1] = {1, 30, 30, 1};

constexpr bool kUseBtt = true;

constexpr int kContractLanes = 16;
constexpr int kSoftmaxLanes = 4;
constexpr int kLayerNormLanes = 4;
constexpr int kGeluLanes = 4;
constexpr int kAddLanes = 4;
constexpr int kLossLanes = 4;
constexpr int kSgdLanes = 8;

constexpr int kParamWords = 301281;
constexpr int kActWords = 1130138;
constexpr int kScratchWords = 333562;

constexpr int kParamPartition = 16;
constexpr int kActPartition = 16;

}  // namespace ttsim_cfg

#define TTSIM_PARAM_STORAGE uram
#define TTSIM_ACT_STORAGE uram
