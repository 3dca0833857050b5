// `ttsim dataset-lengths`: token-length histogram of a JointBERT-layout dataset's
// train/dev/test splits, in the format of configs/datasets/atis_lengths.json.

#include <iostream>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "models/dataset/atis_dataset.h"
#include "models/dataset/dataset_lengths.h"

namespace ttsim::cli {
namespace {

int run_dataset_lengths(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string data, out, source;
  std::int64_t seq_len = 32;
  options.add_options()
      ("data", po::value<std::string>(&data)->required(),
       "dataset folder in the JointBERT layout (intent_label.txt, slot_label.txt, "
       "train|dev|test/{seq.in,seq.out,label})")
      ("out", po::value<std::string>(&out),
       "write the histogram JSON here (atomically); without it the JSON goes to stdout")
      ("source", po::value<std::string>(&source),
       "provenance text stored in the file's \"source\" (default: the --data path)")
      ("seq-len", po::value<std::int64_t>(&seq_len)->default_value(32),
       "sequence length for the summary's truncation column (the file keeps true lengths)");
  po::variables_map vm;
  if (!parse_options("dataset-lengths", "--data DIR [--out F] [--source TEXT]", options, {},
                     args, vm)) {
    return 0;
  }
  if (seq_len < 1) throw InputError("--seq-len: expected an integer >= 1, found " +
                                    std::to_string(seq_len));
  refuse_output_inside({"--out", out}, {"--data", data});
  check_output_writable({"--out", out});
  const auto ds = dataset::load_atis_dataset(data);
  const auto lengths = dataset::compute_dataset_lengths(ds, source.empty() ? data : source);
  const std::string json = dataset::dataset_lengths_to_json(lengths);
  if (out.empty()) {
    std::cout << json;
    return 0;
  }
  write_file_atomic(out, json);
  std::cout << fmt::format("{:<6} {:>6} {:>4} {:>6} {:>4} {:>4} {:>7} {:>10} {:>14}\n", "split",
                           "count", "min", "median", "p95", "max", "mean",
                           fmt::format(">{} tok", seq_len),
                           fmt::format("tokens@{} eff", seq_len));
  for (const char* name : {"train", "dev", "test"}) {
    const auto& h = lengths.split(name);
    std::cout << fmt::format(
        "{:<6} {:>6} {:>4} {:>6} {:>4} {:>4} {:>7.2f} {:>10} {:>14}\n", name, h.count,
        h.samples.empty() ? 0 : h.samples.begin()->first, h.percentile(0.5), h.percentile(0.95),
        h.max_length(), h.count ? static_cast<double>(h.total_tokens()) / h.count : 0.0,
        h.samples_longer_than(seq_len),
        dataset::epoch_tokens(h, seq_len, false));
  }
  std::cout << "wrote " << out << "\n";
  return 0;
}

const CommandRegistration kRegistration{
    {"dataset-lengths", "token-length histogram of a JointBERT-layout dataset (train/dev/test)",
     run_dataset_lengths}};

}  // namespace
}  // namespace ttsim::cli
