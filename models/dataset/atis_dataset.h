#pragma once
// Reader for joint intent-detection / slot-filling datasets in the JointBERT layout
// (github.com/monologg/JointBERT, data/atis):
//
//   DIR/intent_label.txt   one intent per line; must contain "UNK"
//   DIR/slot_label.txt     one BIO slot tag per line; must contain "PAD" and "UNK"
//   DIR/<split>/seq.in     one utterance per line, tokens separated by spaces
//   DIR/<split>/seq.out    one BIO tag per token of the same line of seq.in
//   DIR/<split>/label      one intent per line
//   for <split> in train, dev, test.
//
// Ids: the token vocabulary is built from train/seq.in: id 0 = "PAD", id 1 = "UNK",
// then every train token in order of first appearance. Intent and slot-tag ids follow
// the line order of the label files. A token, intent or slot tag that is not in its set
// (dev/test words unseen in train, intents and tags missing from the label files) gets
// the UNK id; the original strings are kept so that metrics are computed against the
// real gold labels (an UNK gold label can never be predicted correctly).

#include <string>
#include <vector>

#include "models/dataset/label_set.h"

namespace ttsim::dataset {

/// One utterance with its gold labels, as strings and as ids.
struct Utterance {
  int line = 0;                       ///< 1-based line in the split's three files
  std::vector<std::string> words;     ///< seq.in tokens
  std::vector<std::string> tags;      ///< seq.out BIO tags, same length as words
  std::string intent;                 ///< label line (multi-intents joined with '#')
  std::vector<int> token_ids;         ///< vocabulary ids of words (UNK when unseen)
  std::vector<int> tag_ids;           ///< slot-tag ids of tags (UNK when not listed)
  int intent_id = 0;                  ///< intent id (UNK when not listed)

  int length() const { return static_cast<int>(words.size()); }
};

/// One split ("train", "dev" or "test") of the dataset.
struct Split {
  std::string name;
  std::string dir;  ///< the folder holding seq.in, seq.out, label
  std::vector<Utterance> utterances;

  int size() const { return static_cast<int>(utterances.size()); }
};

/// A loaded dataset with its three splits and id maps.
struct AtisDataset {
  std::string root;  ///< the DIR it was read from

  LabelSet vocab;    ///< tokens: "PAD" (0), "UNK" (1), then train tokens
  int pad_token = 0;
  int unk_token = 1;

  LabelSet intents;  ///< from intent_label.txt
  int unk_intent = 0;

  LabelSet slot_tags;  ///< from slot_label.txt
  int pad_tag = 0;
  int unk_tag = 1;

  Split train, dev, test;

  /// The split called `name` ("train", "dev", "test"); throws InputError otherwise.
  const Split& split(const std::string& name) const;
};

/// Reads the three lines files of one split folder and maps them to ids with the given
/// sets (tokens are not added to `vocab`). Errors (InputError) name the file and the
/// 1-based line: a missing file ("<file>: cannot open file for reading"), files of
/// different line counts, an empty utterance, a tag count different from the token
/// count ("<dir>/seq.out:<line>: expected N slot tags (one per token of seq.in), found
/// M"), or a label line that is not exactly one field.
Split read_split(const std::string& dir, const std::string& name, const LabelSet& vocab,
                 int unk_token, const LabelSet& intents, int unk_intent,
                 const LabelSet& slot_tags, int unk_tag);

/// Loads DIR in the JointBERT layout (see the file comment). Throws InputError as
/// read_split does, when DIR is not a folder, and when intent_label.txt lacks "UNK" or
/// slot_label.txt lacks "PAD" or "UNK".
AtisDataset load_atis_dataset(const std::string& dir);

}  // namespace ttsim::dataset
