#pragma once
// Fixed-length encoding of one utterance for a model of sequence length seq_len.
//
// Truncation / padding policy:
// - An utterance of n tokens gives the model its first min(n, seq_len) tokens
//   (`length`); positions length..seq_len-1 hold the PAD token and the PAD slot tag.
// - Tokens past seq_len are dropped: they take no part in the training loss, and at
//   evaluation the model's tag for them is taken as "O", so gold slot spans that reach
//   past seq_len count as missed (recall falls; nothing is hidden).
// - There is no [CLS]/[SEP] token: position 0 is the first word (the intent head reads
//   the sequence as the model defines it).

#include <vector>

#include "models/dataset/atis_dataset.h"

namespace ttsim::dataset {

/// One utterance as the training engines see it. All vectors have seq_len entries.
struct EncodedSample {
  std::vector<int> tokens;  ///< vocabulary ids, PAD after `length`
  std::vector<int> tags;    ///< slot-tag ids, PAD tag after `length`
  int intent = 0;           ///< intent id
  int length = 0;           ///< tokens given to the model: min(full_length, seq_len), >= 1
  int full_length = 0;      ///< tokens in the utterance
  bool truncated() const { return full_length > length; }
};

/// Encodes `u` for sequence length `seq_len` (>= 1) with the pad ids of `ds`.
/// Throws std::invalid_argument when seq_len < 1.
EncodedSample encode_utterance(const AtisDataset& ds, const Utterance& u, int seq_len);

}  // namespace ttsim::dataset
