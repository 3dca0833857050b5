#pragma once
// Token-length histograms of a dataset's splits, the input the simulator and the DSE use
// for epoch latency of designs that process the effective (unpadded) sequence length.
//
// File format (configs/datasets/atis_lengths.json):
//   {"source": "<where the data came from>",
//    "splits": {"train": {"count": N, "histogram": {"<length>": samples, ...}},
//               "dev": {...}, "test": {...}},
//    "max_length": <longest utterance over all splits>}
// Lengths are whitespace tokens per utterance (seq.in fields), keys in increasing order.
//
// Lengths over the model's sequence length: the histogram records the true, untruncated
// lengths (a property of the data, independent of any model). A consumer with sequence
// length S folds them with processed_lengths(): an utterance of L > S tokens is processed
// as S tokens, the same truncation the training reader applies (models/dataset/encoding.h).
// A padded design processes S tokens for every sample whatever its length.

#include <cstdint>
#include <map>
#include <string>

#include "core/json_view.h"
#include "models/dataset/atis_dataset.h"

namespace ttsim::dataset {

/// Samples per token length of one split.
struct LengthHistogram {
  std::int64_t count = 0;                         ///< samples; = sum of `samples`
  std::map<std::int64_t, std::int64_t> samples;   ///< length (tokens, >= 1) -> samples

  /// Longest length present (0 when empty).
  std::int64_t max_length() const { return samples.empty() ? 0 : samples.rbegin()->first; }
  /// Sum of length × samples (tokens in the split, untruncated).
  std::int64_t total_tokens() const;
  /// Smallest length L such that at least fraction q (0 < q <= 1) of the samples have
  /// length <= L (the nearest-rank percentile). 0 when empty.
  std::int64_t percentile(double q) const;
  /// Samples with more than `tokens` tokens (those a model of that sequence length truncates).
  std::int64_t samples_longer_than(std::int64_t tokens) const;
};

/// The histograms of every split of a dataset.
struct DatasetLengths {
  std::string source;                              ///< provenance text
  std::string file;                                ///< the JSON file it was read from ("" when computed)
  std::map<std::string, LengthHistogram> splits;   ///< "train", "dev", "test", ...
  std::int64_t max_length = 0;                     ///< max over all splits

  /// The split called `name`; throws InputError naming the available splits.
  const LengthHistogram& split(const std::string& name) const;
  /// split(name) for pricing an epoch over it: also throws InputError (the file and
  /// /splits/<name>/count) when the split holds no sample, so no epoch of 0 samples (0 s,
  /// 0 J) is ever printed.
  const LengthHistogram& epoch_split(const std::string& name) const;
};

/// Histograms of the train, dev and test splits of `ds`.
DatasetLengths compute_dataset_lengths(const AtisDataset& ds, const std::string& source);

/// The JSON document of the file format above (histogram keys in increasing length),
/// pretty-printed with 2-space indent and a final newline.
std::string dataset_lengths_to_json(const DatasetLengths& lengths);

/// Validates and loads a lengths file. ConfigError (file, JSON pointer, expected, found)
/// for: unknown keys; no "train" split; a histogram key that is not a positive decimal
/// integer; a negative sample count; a count that differs from the histogram's sum; a
/// max_length that differs from the largest length present.
DatasetLengths load_dataset_lengths(const std::string& path);

/// Same for an already parsed document; `file` is used in errors.
DatasetLengths parse_dataset_lengths(const Json& doc, const std::string& file);

/// The lengths a model of sequence length `seq_len` processes: lengths > seq_len fold
/// into seq_len (truncation); counts are unchanged. Throws std::invalid_argument when
/// seq_len < 1.
LengthHistogram processed_lengths(const LengthHistogram& h, std::int64_t seq_len);

/// Tokens processed in one pass over the split by a model of sequence length seq_len:
/// padded designs: count × seq_len; effective-length designs: Σ min(L, seq_len) × samples.
std::int64_t epoch_tokens(const LengthHistogram& h, std::int64_t seq_len, bool padded);

}  // namespace ttsim::dataset
