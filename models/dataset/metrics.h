#pragma once
// Evaluation metrics of joint intent detection and slot filling: intent accuracy and
// CoNLL-style span-level slot F1 (as computed by the CoNLL-2000 conlleval script and
// seqeval's default mode).
//
// Span extraction from BIO tags (conlleval rules):
// - "B-X" starts a span of type X (closing any open span).
// - "I-X" continues an open span of type X; an "I-X" after "O", after the sequence
//   start or after a span of another type starts a new span of type X (I- without B-
//   is not dropped).
// - "O" closes the open span. Tags without a "B-"/"I-" prefix ("PAD", "UNK", anything
//   else) are treated as "O".
// - A span is (type, begin, end); a predicted span counts as correct only when a gold
//   span has the same type and the same boundaries.
// precision = correct / predicted spans, recall = correct / gold spans, F1 = 2PR/(P+R);
// each is 0 when its denominator is 0 (conlleval's convention).

#include <cstdint>
#include <string>
#include <vector>

namespace ttsim::dataset {

/// A labelled span [begin, end) of token positions.
struct SlotSpan {
  std::string type;
  int begin = 0;
  int end = 0;
  bool operator==(const SlotSpan& o) const {
    return type == o.type && begin == o.begin && end == o.end;
  }
};

/// The spans of a BIO tag sequence (rules in the file comment), in order.
std::vector<SlotSpan> bio_spans(const std::vector<std::string>& tags);

/// Accumulates span counts over utterances.
class SlotF1 {
 public:
  /// Adds one utterance. Throws std::invalid_argument when the lengths differ.
  void add(const std::vector<std::string>& gold, const std::vector<std::string>& predicted);
  std::int64_t gold_spans() const { return gold_; }
  std::int64_t predicted_spans() const { return predicted_; }
  std::int64_t correct_spans() const { return correct_; }
  double precision() const;
  double recall() const;
  double f1() const;

 private:
  std::int64_t gold_ = 0, predicted_ = 0, correct_ = 0;
};

/// Accumulates exact-match intent accuracy.
class IntentAccuracy {
 public:
  void add(const std::string& gold, const std::string& predicted) {
    ++total_;
    if (gold == predicted) ++correct_;
  }
  std::int64_t total() const { return total_; }
  std::int64_t correct() const { return correct_; }
  /// correct / total, 0 when empty.
  double accuracy() const { return total_ ? static_cast<double>(correct_) / total_ : 0.0; }

 private:
  std::int64_t total_ = 0, correct_ = 0;
};

}  // namespace ttsim::dataset
