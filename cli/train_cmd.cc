// `ttsim train`: batch-1 SGD on a JointBERT-layout dataset (ATIS) with a training engine:
// the HLS kernels compiled natively (default, engine "hls") or the dense Eigen reference
// (--dense, engine "dense"). After every epoch: train loss, dev and test intent accuracy
// and CoNLL span slot F1. Progress on stderr, the per-epoch table on stdout.

#include <iostream>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "models/dataset/atis_dataset.h"
#include "models/model_spec.h"
#include "models/training/trainer.h"
#include "models/training/training_engine.h"

namespace ttsim::cli {
namespace {

std::string engines_help() {
  std::string s = "training engine (linked:";
  for (const auto& e : training::engine_registry()) s += " " + e.name;
  if (training::engine_registry().empty()) s += " none";
  return s + "); default hls, or dense with --dense";
}

void print_row(const training::EpochResult& e, bool from_checkpoint) {
  std::cout << fmt::format("{:>5} {:>10.4f} {:>9.1f} {:>9.1f} {:>10.2f} {:>11.2f} {:>11.2f} "
                           "{:>12.2f}{}\n",
                           e.epoch, e.train_loss, e.train_seconds, e.samples_per_second,
                           100 * e.dev.intent_accuracy, 100 * e.dev.slot_f1,
                           100 * e.test.intent_accuracy, 100 * e.test.slot_f1,
                           from_checkpoint ? "  (checkpoint)" : "");
  std::cout.flush();
}

/// The options of `train`.
struct TrainCmdOptions {
  std::string data, model_path, arch, json_out, engine_name;
  training::TrainOptions opt;
  std::int64_t seed = 1;
  bool dense = false;
};

/// Parses `args` into `o`; false when --help was given (usage printed). Throws InputError
/// for a bad or missing option.
bool parse_train_options(const std::vector<std::string>& args, TrainCmdOptions& o) {
  po::options_description options("options");
  options.add_options()
      ("data", po::value<std::string>(&o.data)->required(),
       "dataset folder in the JointBERT layout (train|dev|test/{seq.in,seq.out,label}, "
       "intent_label.txt, slot_label.txt)")
      ("model", po::value<std::string>(&o.model_path)->required(), "model config (configs/models/*.json)")
      ("arch", po::value<std::string>(&o.arch), "accelerator config (configs/arch/*.json) for the hls engine")
      ("epochs", po::value<int>(&o.opt.epochs)->default_value(1),
       "total epochs (with --checkpoint: continue up to this many)")
      ("lr", po::value<float>(&o.opt.lr)->default_value(4e-3f, "0.004"), "SGD learning rate")
      ("seed", po::value<std::int64_t>(&o.seed)->default_value(1),
       "seed of the parameter initialization and of the per-epoch shuffle")
      ("limit", po::value<int>(&o.opt.limit)->default_value(0),
       "train on the first N train utterances only (0 = all)")
      ("eval-limit", po::value<int>(&o.opt.eval_limit)->default_value(0),
       "evaluate the first N dev and test utterances only (0 = all)")
      ("json", po::value<std::string>(&o.json_out), "write per-epoch figures as JSON here")
      ("checkpoint", po::value<std::string>(&o.opt.checkpoint_path),
       "save the parameters here after every epoch (atomically) and resume from it if it exists")
      ("dense", "dense uncompressed baseline through the Eigen reference (engine \"dense\")")
      ("engine", po::value<std::string>(&o.engine_name), engines_help().c_str());
  po::variables_map vm;
  if (!parse_options("train",
                     "--data DIR --model M [--arch A] [--epochs N] [--lr X] [--seed S] "
                     "[--limit N] [--eval-limit N] [--json OUT] [--checkpoint F] [--dense | --engine E]",
                     options, {}, args, vm)) {
    return false;
  }
  o.dense = vm.count("dense") > 0;
  return true;
}

/// Refuses contradicting or out-of-range options (InputError naming the option) and
/// settles the engine name and the seed.
void check_train_options(TrainCmdOptions& o) {
  training::TrainOptions& opt = o.opt;
  if (o.dense && !o.engine_name.empty() && o.engine_name != "dense") {
    throw InputError("--dense and --engine " + o.engine_name + " contradict each other");
  }
  if (o.engine_name.empty()) o.engine_name = o.dense ? "dense" : "hls";
  if (opt.epochs < 1) throw InputError(fmt::format("--epochs: expected >= 1, found {}", opt.epochs));
  if (!(opt.lr > 0)) throw InputError(fmt::format("--lr: expected > 0, found {}", opt.lr));
  if (o.seed < 0) throw InputError(fmt::format("--seed: expected >= 0, found {}", o.seed));
  if (opt.limit < 0) throw InputError(fmt::format("--limit: expected >= 0, found {}", opt.limit));
  if (opt.eval_limit < 0) {
    throw InputError(fmt::format("--eval-limit: expected >= 0, found {}", opt.eval_limit));
  }
  opt.seed = static_cast<std::uint64_t>(o.seed);
}

/// What the run trains: engine, model, data (with the truncated utterances), then the
/// per-epoch table's header.
std::string run_header(const TrainCmdOptions& o, const training::TrainingEngine& engine, const ModelSpec& model,
                       const dataset::AtisDataset& ds, int train_samples) {
  int truncated = 0;
  for (const auto& u : ds.train.utterances) truncated += u.length() > o.opt.seq_len;
  return fmt::format("engine   {}: {}\n", o.engine_name, engine.describe()) +
         fmt::format("model    {} ({}), seq_len {}, lr {}, seed {}\n", model.name, o.model_path, model.seq_len,
                     o.opt.lr, o.opt.seed) +
         fmt::format("data     {}: train {} (using {}), dev {}, test {}; vocab {}, intents {}, slot tags {}; "
                     "{} train utterances longer than {} tokens are truncated\n",
                     o.data, ds.train.size(), train_samples, ds.dev.size(), ds.test.size(), ds.vocab.size(),
                     ds.intents.size(), ds.slot_tags.size(), truncated, o.opt.seq_len) +
         fmt::format("{:>5} {:>10} {:>9} {:>9} {:>10} {:>11} {:>11} {:>12}\n", "epoch", "train_loss", "train_s",
                     "samples/s", "dev_intent%", "dev_slot_f1", "test_intent%", "test_slot_f1");
}

/// The --json document: the trainer's report and the run's inputs.
Json train_json(const training::TrainReport& report, const TrainCmdOptions& o,
                const training::TrainingEngine& engine, const dataset::AtisDataset& ds) {
  Json j = training::train_report_to_json(report);
  j["engine_description"] = engine.describe();
  j["model_file"] = o.model_path;
  j["arch_file"] = o.arch;
  j["data"] = o.data;
  j["epochs_requested"] = o.opt.epochs;
  j["eval_limit"] = o.opt.eval_limit;
  j["dataset"] = {{"train", ds.train.size()}, {"dev", ds.dev.size()}, {"test", ds.test.size()},
                  {"vocab", ds.vocab.size()}, {"intents", ds.intents.size()}, {"slot_tags", ds.slot_tags.size()}};
  return j;
}

int run_train(const std::vector<std::string>& args) {
  TrainCmdOptions o;
  if (!parse_train_options(args, o)) return 0;
  check_train_options(o);
  // Outputs checked before any epoch: distinct, not an input, folders writable.
  const std::vector<NamedPath> outputs = {{"--checkpoint", o.opt.checkpoint_path}, {"--json", o.json_out}};
  refuse_clashing_paths(outputs, {{"--model", o.model_path}, {"--arch", o.arch}});
  for (const auto& out : outputs) check_output_writable(out);

  const ModelSpec model = load_model_spec(o.model_path);
  const auto ds = dataset::load_atis_dataset(o.data);
  if (ds.train.size() == 0) {
    throw InputError(ds.train.dir + "/seq.in: expected at least one training utterance, found none");
  }
  training::check_model_fits_dataset(model, ds);
  o.opt.seq_len = static_cast<int>(model.seq_len);

  training::EngineSetup setup;
  setup.model = model;
  setup.arch_path = o.arch;
  setup.data = training::dataset_shape(ds);
  setup.seed = o.opt.seed;
  auto engine = training::make_engine(o.engine_name, setup);

  training::RunIdentity id;
  id.engine = o.engine_name;
  id.model = model.name;
  id.seed = o.opt.seed;
  id.lr = o.opt.lr;
  id.train_samples = o.opt.limit > 0 && o.opt.limit < ds.train.size() ? o.opt.limit : ds.train.size();
  id.vocab = ds.vocab.size();
  id.seq_len = o.opt.seq_len;

  std::cout << run_header(o, *engine, model, ds, id.train_samples);
  const auto report = training::train(*engine, ds, o.opt, id, &std::cerr, print_row);
  if (!o.json_out.empty()) write_file_atomic(o.json_out, train_json(report, o, *engine, ds).dump(2) + "\n");
  return 0;
}

const CommandRegistration kRegistration{
    {"train", "train on ATIS (JointBERT layout) with the HLS kernels or the dense reference",
     run_train}};

}  // namespace
}  // namespace ttsim::cli
