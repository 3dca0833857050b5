#include "models/dataset/atis_dataset.h"

#include <sys/stat.h>

#include "core/errors.h"

namespace ttsim::dataset {

namespace {

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

int require_label(const LabelSet& set, const std::string& label, const std::string& file) {
  auto id = set.find(label);
  if (!id) {
    throw InputError(file + ": expected a line \"" + label +
                     "\" (JointBERT layout reserves it), found none");
  }
  return *id;
}

}  // namespace

const Split& AtisDataset::split(const std::string& name) const {
  if (name == "train") return train;
  if (name == "dev") return dev;
  if (name == "test") return test;
  throw InputError("unknown split \"" + name + "\" (expected train, dev or test)");
}

Split read_split(const std::string& dir, const std::string& name, const LabelSet& vocab,
                 int unk_token, const LabelSet& intents, int unk_intent,
                 const LabelSet& slot_tags, int unk_tag) {
  const std::string in_path = join_path(dir, "seq.in");
  const std::string out_path = join_path(dir, "seq.out");
  const std::string label_path = join_path(dir, "label");
  const auto in_lines = read_text_lines(in_path);
  const auto out_lines = read_text_lines(out_path);
  const auto label_lines = read_text_lines(label_path);
  if (out_lines.size() != in_lines.size() || label_lines.size() != in_lines.size()) {
    throw InputError(dir + ": expected seq.in, seq.out and label with the same number of "
                           "lines, found " +
                     std::to_string(in_lines.size()) + ", " + std::to_string(out_lines.size()) +
                     " and " + std::to_string(label_lines.size()));
  }
  Split split;
  split.name = name;
  split.dir = dir;
  split.utterances.reserve(in_lines.size());
  for (std::size_t i = 0; i < in_lines.size(); ++i) {
    const std::string line_no = std::to_string(i + 1);
    Utterance u;
    u.line = static_cast<int>(i + 1);
    u.words = split_fields(in_lines[i]);
    u.tags = split_fields(out_lines[i]);
    const auto label = split_fields(label_lines[i]);
    if (u.words.empty()) {
      throw InputError(in_path + ":" + line_no + ": expected at least one token, found an "
                                                 "empty line");
    }
    if (u.tags.size() != u.words.size()) {
      throw InputError(out_path + ":" + line_no + ": expected " +
                       std::to_string(u.words.size()) +
                       " slot tags (one per token of seq.in), found " +
                       std::to_string(u.tags.size()));
    }
    if (label.size() != 1) {
      throw InputError(label_path + ":" + line_no + ": expected one intent label, found " +
                       std::to_string(label.size()) + " fields");
    }
    u.intent = label[0];
    u.intent_id = intents.id_or(u.intent, unk_intent);
    u.token_ids.reserve(u.words.size());
    u.tag_ids.reserve(u.tags.size());
    for (const auto& w : u.words) u.token_ids.push_back(vocab.id_or(w, unk_token));
    for (const auto& t : u.tags) u.tag_ids.push_back(slot_tags.id_or(t, unk_tag));
    split.utterances.push_back(std::move(u));
  }
  return split;
}

AtisDataset load_atis_dataset(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw InputError(dir + ": expected a dataset folder (JointBERT layout: intent_label.txt, "
                           "slot_label.txt, train/, dev/, test/), found no such folder");
  }
  AtisDataset ds;
  ds.root = dir;
  const std::string intent_file = join_path(dir, "intent_label.txt");
  const std::string slot_file = join_path(dir, "slot_label.txt");
  ds.intents = read_label_file(intent_file);
  ds.unk_intent = require_label(ds.intents, "UNK", intent_file);
  ds.slot_tags = read_label_file(slot_file);
  ds.pad_tag = require_label(ds.slot_tags, "PAD", slot_file);
  ds.unk_tag = require_label(ds.slot_tags, "UNK", slot_file);

  // Vocabulary from train/seq.in: PAD, UNK, then first appearance order.
  const std::string train_dir = join_path(dir, "train");
  ds.pad_token = ds.vocab.add("PAD");
  ds.unk_token = ds.vocab.add("UNK");
  for (const auto& line : read_text_lines(join_path(train_dir, "seq.in"))) {
    for (const auto& w : split_fields(line)) ds.vocab.add(w);
  }
  ds.train = read_split(train_dir, "train", ds.vocab, ds.unk_token, ds.intents, ds.unk_intent,
                        ds.slot_tags, ds.unk_tag);
  ds.dev = read_split(join_path(dir, "dev"), "dev", ds.vocab, ds.unk_token, ds.intents,
                      ds.unk_intent, ds.slot_tags, ds.unk_tag);
  ds.test = read_split(join_path(dir, "test"), "test", ds.vocab, ds.unk_token, ds.intents,
                       ds.unk_intent, ds.slot_tags, ds.unk_tag);
  return ds;
}

}  // namespace ttsim::dataset
