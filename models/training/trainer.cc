#include "models/training/trainer.h"

#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <sys/stat.h>

#include <fmt/format.h>

#include "core/errors.h"
#include "models/dataset/encoding.h"
#include "models/dataset/metrics.h"
#include "models/training/checkpoint.h"

namespace ttsim::training {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// splitmix64 finalizer: decorrelates nearby (seed, epoch) pairs.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Uniform integer in [0, bound) by rejection (bound >= 1).
std::uint64_t bounded(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  std::uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return x % bound;
}

int limited(int size, int limit) { return limit > 0 && limit < size ? limit : size; }

Json eval_to_json(const EvalResult& e) {
  return {{"samples", e.samples},
          {"intent_accuracy", e.intent_accuracy},
          {"slot_f1", e.slot_f1},
          {"slot_precision", e.slot_precision},
          {"slot_recall", e.slot_recall},
          {"gold_spans", e.gold_spans},
          {"predicted_spans", e.predicted_spans},
          {"correct_spans", e.correct_spans},
          {"seconds", e.seconds}};
}

EvalResult eval_from_json(const JsonView& v) {
  EvalResult e;
  e.samples = static_cast<int>(v.at("samples").as_int(0, INT32_MAX));
  e.intent_accuracy = v.at("intent_accuracy").as_double(0, 1);
  e.slot_f1 = v.at("slot_f1").as_double(0, 1);
  e.slot_precision = v.at("slot_precision").as_double(0, 1);
  e.slot_recall = v.at("slot_recall").as_double(0, 1);
  e.gold_spans = v.at("gold_spans").as_int(0, INT64_MAX);
  e.predicted_spans = v.at("predicted_spans").as_int(0, INT64_MAX);
  e.correct_spans = v.at("correct_spans").as_int(0, INT64_MAX);
  e.seconds = v.at("seconds").as_double(0, 1e12);
  return e;
}

Json identity_to_json(const RunIdentity& id) {
  return {{"engine", id.engine},   {"model", id.model},
          {"seed", id.seed},       {"lr", id.lr},
          {"train_samples", id.train_samples}, {"vocab", id.vocab},
          {"seq_len", id.seq_len}};
}

/// Throws InputError when the checkpoint's identity differs from this run's.
void check_identity(const Json& stored, const RunIdentity& id, const std::string& path) {
  const Json want = identity_to_json(id);
  for (auto it = want.begin(); it != want.end(); ++it) {
    if (!stored.contains(it.key()) || stored.at(it.key()) != it.value()) {
      throw InputError(path + ": checkpoint belongs to another run: its " + it.key() + " is " +
                       (stored.contains(it.key()) ? stored.at(it.key()).dump() : "missing") +
                       ", this run's is " + it.value().dump() +
                       " (use another --checkpoint file or the same settings)");
    }
  }
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::vector<int> shuffled_order(int n, std::uint64_t seed, int epoch) {
  std::vector<int> order(static_cast<std::size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::mt19937_64 rng(mix(seed ^ mix(static_cast<std::uint64_t>(epoch))));
  for (int i = n - 1; i > 0; --i) {
    const auto j = static_cast<int>(bounded(rng, static_cast<std::uint64_t>(i) + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

EvalResult evaluate(TrainingEngine& engine, const dataset::AtisDataset& ds,
                    const dataset::Split& split, int seq_len, int limit) {
  const auto t0 = Clock::now();
  dataset::IntentAccuracy intents;
  dataset::SlotF1 slots;
  const int n = limited(split.size(), limit);
  std::vector<std::string> predicted_tags;
  for (int i = 0; i < n; ++i) {
    const auto& u = split.utterances[static_cast<std::size_t>(i)];
    const auto sample = dataset::encode_utterance(ds, u, seq_len);
    const Prediction p = engine.predict(sample);
    if (static_cast<int>(p.slot_tags.size()) != sample.length) {
      throw std::logic_error(fmt::format(
          "engine predicted {} slot tags for a sample of {} tokens", p.slot_tags.size(),
          sample.length));
    }
    const bool intent_known = p.intent >= 0 && p.intent < ds.intents.size();
    intents.add(u.intent, intent_known ? ds.intents.name(p.intent) : std::string("UNK"));
    predicted_tags.assign(static_cast<std::size_t>(u.length()), "O");
    for (int k = 0; k < sample.length; ++k) {
      const int t = p.slot_tags[static_cast<std::size_t>(k)];
      predicted_tags[static_cast<std::size_t>(k)] =
          t >= 0 && t < ds.slot_tags.size() ? ds.slot_tags.name(t) : std::string("UNK");
    }
    slots.add(u.tags, predicted_tags);
  }
  EvalResult r;
  r.samples = n;
  r.intent_accuracy = intents.accuracy();
  r.slot_f1 = slots.f1();
  r.slot_precision = slots.precision();
  r.slot_recall = slots.recall();
  r.gold_spans = slots.gold_spans();
  r.predicted_spans = slots.predicted_spans();
  r.correct_spans = slots.correct_spans();
  r.seconds = seconds_since(t0);
  return r;
}

TrainReport train(TrainingEngine& engine, const dataset::AtisDataset& ds,
                  const TrainOptions& options, const RunIdentity& identity,
                  std::ostream* progress,
                  const std::function<void(const EpochResult&, bool)>& on_epoch) {
  TrainReport report;
  report.identity = identity;
  const std::string& ckpt = options.checkpoint_path;
  if (!ckpt.empty() && file_exists(ckpt)) {
    Checkpoint c = read_checkpoint(ckpt);
    JsonView header(c.header, ckpt);
    check_identity(c.header.value("identity", Json::object()), identity, ckpt);
    for (const auto& e : header.at("epochs").as_array(0)) {
      report.epochs.push_back(epoch_from_json(e.raw(), ckpt));
    }
    engine.load_parameters(c.parameters);
    report.resumed_after_epoch = static_cast<int>(report.epochs.size());
    if (progress) {
      *progress << fmt::format("resumed from {} after epoch {}\n", ckpt,
                               report.resumed_after_epoch);
    }
    if (on_epoch) {
      for (const auto& e : report.epochs) on_epoch(e, true);
    }
  }
  const int n = limited(ds.train.size(), options.limit);
  for (int epoch = report.resumed_after_epoch + 1; epoch <= options.epochs; ++epoch) {
    if (options.stop_early && options.stop_early(report.epochs)) break;
    const auto order = shuffled_order(n, options.seed, epoch);
    const auto t0 = Clock::now();
    auto last_print = t0;
    double loss_sum = 0;
    for (int i = 0; i < n; ++i) {
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw Cancelled();
      const auto& u = ds.train.utterances[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
      const auto sample = dataset::encode_utterance(ds, u, options.seq_len);
      const double loss = engine.train_step(sample, options.lr);
      if (!std::isfinite(loss)) {
        throw InputError(fmt::format(
            "training diverged: loss is {} at epoch {}, sample {} (train line {}) with "
            "learning rate {}; try a lower --lr",
            loss, epoch, i + 1, u.line, options.lr));
      }
      loss_sum += loss;
      if (options.on_sample) options.on_sample(epoch, i + 1);
      const auto now = Clock::now();
      if (progress && (i + 1 == n || std::chrono::duration<double>(now - last_print).count() >=
                                         options.progress_seconds)) {
        last_print = now;
        const double s = seconds_since(t0);
        *progress << fmt::format("epoch {} {:>6}/{} samples  {:8.1f} samples/s  running loss {:.4f}\n",
                                 epoch, i + 1, n, s > 0 ? (i + 1) / s : 0.0,
                                 loss_sum / (i + 1));
        progress->flush();
      }
    }
    EpochResult r;
    r.epoch = epoch;
    r.train_samples = n;
    r.train_seconds = seconds_since(t0);
    r.train_loss = n ? loss_sum / n : 0.0;
    r.samples_per_second = r.train_seconds > 0 ? n / r.train_seconds : 0.0;
    r.dev = evaluate(engine, ds, ds.dev, options.seq_len, options.eval_limit);
    r.test = evaluate(engine, ds, ds.test, options.seq_len, options.eval_limit);
    report.epochs.push_back(r);
    if (!ckpt.empty()) {
      Json header = {{"identity", identity_to_json(identity)}, {"epochs", Json::array()}};
      for (const auto& e : report.epochs) header["epochs"].push_back(epoch_to_json(e));
      write_checkpoint(ckpt, Checkpoint{header, engine.save_parameters()});
    }
    if (on_epoch) on_epoch(r, false);
  }
  return report;
}

DatasetShape dataset_shape(const dataset::AtisDataset& ds) {
  DatasetShape d;
  d.vocab = ds.vocab.size();
  d.intents = ds.intents.size();
  d.slot_tags = ds.slot_tags.size();
  d.pad_token = ds.pad_token;
  d.pad_tag = ds.pad_tag;
  return d;
}

void check_model_fits_dataset(const ModelSpec& model, const dataset::AtisDataset& ds) {
  const std::string file = model.source_file.empty() ? model.name : model.source_file;
  auto need = [&](const char* field, std::int64_t have, std::int64_t want, const char* what) {
    if (have < want) {
      throw InputError(fmt::format("{}: /{}: expected at least {} ({} of {}), found {}", file,
                                   field, want, what, ds.root, have));
    }
  };
  if (model.batch != 1) {
    throw InputError(fmt::format("{}: /batch: expected 1 (training runs batch-1 SGD), found {}",
                                 file, model.batch));
  }
  need("vocab", model.vocab, ds.vocab.size(), "the train vocabulary with PAD and UNK");
  need("intents", model.intents, ds.intents.size(), "the intents in intent_label.txt");
  need("slot_tags", model.slot_tags, ds.slot_tags.size(), "the tags in slot_label.txt");
  need("seq_len", model.seq_len, 1, "tokens");
}

Json epoch_to_json(const EpochResult& e) {
  return {{"epoch", e.epoch},
          {"train_loss", e.train_loss},
          {"train_samples", e.train_samples},
          {"train_seconds", e.train_seconds},
          {"samples_per_second", e.samples_per_second},
          {"dev", eval_to_json(e.dev)},
          {"test", eval_to_json(e.test)}};
}

EpochResult epoch_from_json(const Json& j, const std::string& file) {
  JsonView v(j, file);
  EpochResult e;
  e.epoch = static_cast<int>(v.at("epoch").as_int(1, INT32_MAX));
  e.train_loss = v.at("train_loss").as_double(-1e300, 1e300);
  e.train_samples = static_cast<int>(v.at("train_samples").as_int(0, INT32_MAX));
  e.train_seconds = v.at("train_seconds").as_double(0, 1e12);
  e.samples_per_second = v.at("samples_per_second").as_double(0, 1e12);
  e.dev = eval_from_json(v.at("dev"));
  e.test = eval_from_json(v.at("test"));
  return e;
}

Json train_report_to_json(const TrainReport& report) {
  Json j = identity_to_json(report.identity);
  j["resumed_after_epoch"] = report.resumed_after_epoch;
  j["epochs"] = Json::array();
  for (const auto& e : report.epochs) j["epochs"].push_back(epoch_to_json(e));
  return j;
}

}  // namespace ttsim::training
