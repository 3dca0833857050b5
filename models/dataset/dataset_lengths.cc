#include "models/dataset/dataset_lengths.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/errors.h"

namespace ttsim::dataset {

std::int64_t LengthHistogram::total_tokens() const {
  std::int64_t t = 0;
  for (const auto& [len, n] : samples) t += len * n;
  return t;
}

std::int64_t LengthHistogram::percentile(double q) const {
  if (count <= 0) return 0;
  const auto rank = static_cast<std::int64_t>(std::ceil(q * static_cast<double>(count)));
  std::int64_t seen = 0;
  for (const auto& [len, n] : samples) {
    seen += n;
    if (seen >= std::max<std::int64_t>(rank, 1)) return len;
  }
  return max_length();
}

std::int64_t LengthHistogram::samples_longer_than(std::int64_t tokens) const {
  std::int64_t n = 0;
  for (auto it = samples.upper_bound(tokens); it != samples.end(); ++it) n += it->second;
  return n;
}

const LengthHistogram& DatasetLengths::split(const std::string& name) const {
  auto it = splits.find(name);
  if (it == splits.end()) {
    std::string names;
    for (const auto& [n, h] : splits) names += (names.empty() ? "" : ", ") + n;
    throw InputError((file.empty() ? source : file + ": /splits") + ": expected one of the splits " + names +
                     ", found \"" + name + "\"");
  }
  return it->second;
}

const LengthHistogram& DatasetLengths::epoch_split(const std::string& name) const {
  const LengthHistogram& h = split(name);
  if (h.count < 1) {
    throw InputError((file.empty() ? source : file) + ": /splits/" + name +
                     "/count: expected a split with at least one sample to price an epoch over, found 0");
  }
  return h;
}

DatasetLengths compute_dataset_lengths(const AtisDataset& ds, const std::string& source) {
  DatasetLengths out;
  out.source = source;
  for (const Split* s : {&ds.train, &ds.dev, &ds.test}) {
    LengthHistogram h;
    for (const auto& u : s->utterances) {
      ++h.samples[u.length()];
      ++h.count;
    }
    out.max_length = std::max(out.max_length, h.max_length());
    out.splits[s->name] = std::move(h);
  }
  return out;
}

std::string dataset_lengths_to_json(const DatasetLengths& lengths) {
  nlohmann::ordered_json doc;
  doc["source"] = lengths.source;
  nlohmann::ordered_json splits = nlohmann::ordered_json::object();
  // train, dev, test first, in that order; any other split after them.
  std::vector<std::string> order;
  for (const char* n : {"train", "dev", "test"}) {
    if (lengths.splits.count(n)) order.push_back(n);
  }
  for (const auto& [n, h] : lengths.splits) {
    if (std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);
  }
  for (const auto& n : order) {
    const auto& h = lengths.splits.at(n);
    nlohmann::ordered_json hist = nlohmann::ordered_json::object();
    for (const auto& [len, count] : h.samples) hist[std::to_string(len)] = count;
    splits[n] = {{"count", h.count}, {"histogram", hist}};
  }
  doc["splits"] = splits;
  doc["max_length"] = lengths.max_length;
  return doc.dump(2) + "\n";
}

namespace {

bool is_positive_decimal(const std::string& s) {
  if (s.empty() || s.size() > 9 || s[0] == '0') return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

DatasetLengths parse_dataset_lengths(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"source", "splits", "max_length"});
  DatasetLengths out;
  out.file = file;
  out.source = root.at("source").as_string();
  JsonView splits = root.at("splits");
  if (!splits.is_object()) splits.fail("an object of splits");
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  std::int64_t longest = 0;
  for (auto it = splits.raw().begin(); it != splits.raw().end(); ++it) {
    JsonView sv = splits.at(it.key());
    sv.allow_keys({"count", "histogram"});
    LengthHistogram h;
    h.count = sv.at("count").as_int(0, kMax);
    JsonView hv = sv.at("histogram");
    if (!hv.is_object()) hv.fail("an object mapping token length to samples");
    std::int64_t sum = 0;
    for (auto jt = hv.raw().begin(); jt != hv.raw().end(); ++jt) {
      JsonView entry = hv.at(jt.key());
      if (!is_positive_decimal(jt.key())) {
        entry.fail("a positive decimal token length as key", "key \"" + jt.key() + "\"");
      }
      const std::int64_t n = entry.as_int(0, kMax);
      h.samples[std::stoll(jt.key())] = n;
      sum += n;
    }
    if (sum != h.count) {
      sv.at("count").fail("the sum of the histogram's samples (" + std::to_string(sum) + ")",
                          std::to_string(h.count));
    }
    longest = std::max(longest, h.max_length());
    out.splits[it.key()] = std::move(h);
  }
  if (!out.splits.count("train")) splits.fail("a \"train\" split", "none");
  out.max_length = root.at("max_length").as_int(1, kMax);
  if (out.max_length != longest) {
    root.at("max_length")
        .fail("the longest length in the histograms (" + std::to_string(longest) + ")",
              std::to_string(out.max_length));
  }
  return out;
}

DatasetLengths load_dataset_lengths(const std::string& path) {
  return parse_dataset_lengths(load_json_file(path), path);
}

LengthHistogram processed_lengths(const LengthHistogram& h, std::int64_t seq_len) {
  if (seq_len < 1) {
    throw std::invalid_argument("processed_lengths: seq_len must be >= 1, got " +
                                std::to_string(seq_len));
  }
  LengthHistogram out;
  out.count = h.count;
  for (const auto& [len, n] : h.samples) {
    if (n) out.samples[std::min(len, seq_len)] += n;
  }
  return out;
}

std::int64_t epoch_tokens(const LengthHistogram& h, std::int64_t seq_len, bool padded) {
  if (padded) return h.count * seq_len;
  return processed_lengths(h, seq_len).total_tokens();
}

}  // namespace ttsim::dataset
