#pragma once
// Writes small datasets in the JointBERT layout for the tests (no real data).

#include <string>
#include <vector>

namespace ttsim::dataset::testing {

/// One synthetic utterance: words, BIO tags (same count unless a test wants a mismatch)
/// and an intent.
struct SyntheticLine {
  std::string words, tags, intent;
};

/// Writes DIR/{intent_label.txt, slot_label.txt} and DIR/<split>/{seq.in,seq.out,label}.
void write_split(const std::string& dir, const std::string& split,
                 const std::vector<SyntheticLine>& lines);
void write_labels(const std::string& dir, const std::vector<std::string>& intents,
                  const std::vector<std::string>& slot_tags);
/// Writes `content` to `path`, creating parent folders.
void write_text(const std::string& path, const std::string& content);
/// A fresh empty folder under TEST_TMPDIR named `name`.
std::string fresh_dir(const std::string& name);

/// A generated, learnable dataset in the JointBERT layout: "fly from CITY to CITY"-like
/// utterances whose intent is set by a keyword and whose slots tag the city names.
/// `seed` makes the word choice reproducible; the counts are utterances per split.
std::string write_toy_atis(const std::string& name, int train, int dev, int test,
                           unsigned seed = 7);

}  // namespace ttsim::dataset::testing
