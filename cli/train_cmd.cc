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

int run_train(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string data, model_path, arch, json_out, engine_name;
  training::TrainOptions opt;
  std::int64_t seed = 1;
  options.add_options()
      ("data", po::value<std::string>(&data)->required(),
       "dataset folder in the JointBERT layout (train|dev|test/{seq.in,seq.out,label}, "
       "intent_label.txt, slot_label.txt)")
      ("model", po::value<std::string>(&model_path)->required(), "model config (configs/models/*.json)")
      ("arch", po::value<std::string>(&arch), "accelerator config (configs/arch/*.json) for the hls engine")
      ("epochs", po::value<int>(&opt.epochs)->default_value(1),
       "total epochs (with --checkpoint: continue up to this many)")
      ("lr", po::value<float>(&opt.lr)->default_value(4e-3f, "0.004"), "SGD learning rate")
      ("seed", po::value<std::int64_t>(&seed)->default_value(1),
       "seed of the parameter initialization and of the per-epoch shuffle")
      ("limit", po::value<int>(&opt.limit)->default_value(0),
       "train on the first N train utterances only (0 = all)")
      ("eval-limit", po::value<int>(&opt.eval_limit)->default_value(0),
       "evaluate the first N dev and test utterances only (0 = all)")
      ("json", po::value<std::string>(&json_out), "write per-epoch figures as JSON here")
      ("checkpoint", po::value<std::string>(&opt.checkpoint_path),
       "save the parameters here after every epoch (atomically) and resume from it if it exists")
      ("dense", "dense uncompressed baseline through the Eigen reference (engine \"dense\")")
      ("engine", po::value<std::string>(&engine_name), engines_help().c_str());
  po::variables_map vm;
  if (!parse_options("train",
                     "--data DIR --model M [--arch A] [--epochs N] [--lr X] [--seed S] "
                     "[--limit N] [--json OUT] [--checkpoint F] [--dense]",
                     options, {}, args, vm)) {
    return 0;
  }
  if (vm.count("dense") && !engine_name.empty() && engine_name != "dense") {
    throw InputError("--dense and --engine " + engine_name + " contradict each other");
  }
  if (engine_name.empty()) engine_name = vm.count("dense") ? "dense" : "hls";
  if (opt.epochs < 1) throw InputError(fmt::format("--epochs: expected >= 1, found {}", opt.epochs));
  if (!(opt.lr > 0)) throw InputError(fmt::format("--lr: expected > 0, found {}", opt.lr));
  if (seed < 0) throw InputError(fmt::format("--seed: expected >= 0, found {}", seed));
  if (opt.limit < 0) throw InputError(fmt::format("--limit: expected >= 0, found {}", opt.limit));
  if (opt.eval_limit < 0) {
    throw InputError(fmt::format("--eval-limit: expected >= 0, found {}", opt.eval_limit));
  }
  opt.seed = static_cast<std::uint64_t>(seed);
  // Outputs checked before any epoch: distinct, not an input, folders writable.
  const std::vector<NamedPath> outputs = {{"--checkpoint", opt.checkpoint_path}, {"--json", json_out}};
  refuse_clashing_paths(outputs, {{"--model", model_path}, {"--arch", arch}});
  for (const auto& o : outputs) check_output_writable(o);

  const ModelSpec model = load_model_spec(model_path);
  const auto ds = dataset::load_atis_dataset(data);
  training::check_model_fits_dataset(model, ds);
  opt.seq_len = static_cast<int>(model.seq_len);

  training::EngineSetup setup;
  setup.model = model;
  setup.arch_path = arch;
  setup.data = training::dataset_shape(ds);
  setup.seed = opt.seed;
  auto engine = training::make_engine(engine_name, setup);

  training::RunIdentity id;
  id.engine = engine_name;
  id.model = model.name;
  id.seed = opt.seed;
  id.lr = opt.lr;
  id.train_samples = opt.limit > 0 && opt.limit < ds.train.size() ? opt.limit : ds.train.size();
  id.vocab = ds.vocab.size();
  id.seq_len = opt.seq_len;

  int truncated = 0;
  for (const auto& u : ds.train.utterances) truncated += u.length() > opt.seq_len;
  std::cout << fmt::format("engine   {}: {}\n", engine_name, engine->describe());
  std::cout << fmt::format("model    {} ({}), seq_len {}, lr {}, seed {}\n", model.name,
                           model_path, model.seq_len, opt.lr, opt.seed);
  std::cout << fmt::format(
      "data     {}: train {} (using {}), dev {}, test {}; vocab {}, intents {}, slot tags {}; "
      "{} train utterances longer than {} tokens are truncated\n",
      data, ds.train.size(), id.train_samples, ds.dev.size(), ds.test.size(), ds.vocab.size(),
      ds.intents.size(), ds.slot_tags.size(), truncated, opt.seq_len);
  std::cout << fmt::format("{:>5} {:>10} {:>9} {:>9} {:>10} {:>11} {:>11} {:>12}\n", "epoch",
                           "train_loss", "train_s", "samples/s", "dev_intent%", "dev_slot_f1",
                           "test_intent%", "test_slot_f1");
  const auto report = training::train(*engine, ds, opt, id, &std::cerr, print_row);
  if (!json_out.empty()) {
    Json j = training::train_report_to_json(report);
    j["engine_description"] = engine->describe();
    j["model_file"] = model_path;
    j["arch_file"] = arch;
    j["data"] = data;
    j["epochs_requested"] = opt.epochs;
    j["eval_limit"] = opt.eval_limit;
    j["dataset"] = {{"train", ds.train.size()}, {"dev", ds.dev.size()}, {"test", ds.test.size()},
                    {"vocab", ds.vocab.size()}, {"intents", ds.intents.size()},
                    {"slot_tags", ds.slot_tags.size()}};
    write_file_atomic(json_out, j.dump(2) + "\n");
  }
  return 0;
}

const CommandRegistration kRegistration{
    {"train", "train on ATIS (JointBERT layout) with the HLS kernels or the dense reference",
     run_train}};

}  // namespace
}  // namespace ttsim::cli
