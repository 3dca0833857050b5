#include "models/dataset/encoding.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ttsim::dataset {

EncodedSample encode_utterance(const AtisDataset& ds, const Utterance& u, int seq_len) {
  if (seq_len < 1) {
    throw std::invalid_argument("encode_utterance: seq_len must be >= 1, got " +
                                std::to_string(seq_len));
  }
  EncodedSample s;
  s.full_length = u.length();
  s.length = std::min(s.full_length, seq_len);
  s.intent = u.intent_id;
  s.tokens.assign(static_cast<std::size_t>(seq_len), ds.pad_token);
  s.tags.assign(static_cast<std::size_t>(seq_len), ds.pad_tag);
  std::copy_n(u.token_ids.begin(), s.length, s.tokens.begin());
  std::copy_n(u.tag_ids.begin(), s.length, s.tags.begin());
  return s;
}

}  // namespace ttsim::dataset
