#pragma once
// A tiny, exact TrainingEngine for the driver's tests: token embeddings of width D,
// intent = softmax(mean embedding · Wi + bi), slot tag of position k =
// softmax([e(t_k), e(t_{k-1})] · Ws + bs) (e(t_{-1}) = 0); loss = intent CE + mean slot CE;
// plain SGD on every parameter. Deterministic, learns the toy dataset within a few epochs.

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "models/training/training_engine.h"

namespace ttsim::training::testing {

class TinyEngine : public TrainingEngine {
 public:
  TinyEngine(const EngineSetup& s, int dim = 8)
      : V(static_cast<int>(s.model.vocab)),
        I(static_cast<int>(s.model.intents)),
        T(static_cast<int>(s.model.slot_tags)),
        D(dim) {
    std::mt19937_64 rng(s.seed);
    auto init = [&](std::vector<float>& v, std::size_t n) {
      v.resize(n);
      for (auto& x : v) x = static_cast<float>((static_cast<double>(rng() >> 11) / 9007199254740992.0 - 0.5) * 0.2);
    };
    init(E, static_cast<std::size_t>(V * D));
    init(Wi, static_cast<std::size_t>(D * I));
    bi.assign(static_cast<std::size_t>(I), 0.f);
    init(Ws, static_cast<std::size_t>(2 * D * T));
    bs.assign(static_cast<std::size_t>(T), 0.f);
  }

  std::string describe() const override { return "tiny test engine"; }
  int steps = 0;

  double train_step(const dataset::EncodedSample& s, float lr) override {
    ++steps;
    return run(s, lr, nullptr);
  }

  Prediction predict(const dataset::EncodedSample& s) override {
    Prediction p;
    run(s, 0.f, &p);
    return p;
  }

  std::string save_parameters() const override {
    std::string blob;
    for (const auto* v : {&E, &Wi, &bi, &Ws, &bs}) append_floats(blob, v->data(), v->size());
    return blob;
  }

  void load_parameters(const std::string& blob) override {
    std::size_t off = 0;
    for (auto* v : {&E, &Wi, &bi, &Ws, &bs}) read_floats(blob, off, v->data(), v->size());
  }

 private:
  static void softmax(std::vector<double>& z) {
    const double m = *std::max_element(z.begin(), z.end());
    double sum = 0;
    for (auto& x : z) sum += (x = std::exp(x - m));
    for (auto& x : z) x /= sum;
  }

  /// Forward; with predict != null fills it, otherwise backward + SGD with `lr`.
  double run(const dataset::EncodedSample& s, float lr, Prediction* predict) {
    const int L = s.length;
    std::vector<double> h(static_cast<std::size_t>(D), 0.0);
    for (int k = 0; k < L; ++k)
      for (int d = 0; d < D; ++d) h[d] += E[s.tokens[k] * D + d] / L;
    std::vector<double> zi(static_cast<std::size_t>(I));
    for (int c = 0; c < I; ++c) {
      zi[c] = bi[c];
      for (int d = 0; d < D; ++d) zi[c] += h[d] * Wi[d * I + c];
    }
    softmax(zi);
    double loss = -std::log(std::max(zi[s.intent], 1e-30));
    if (predict) {
      predict->intent = static_cast<int>(std::max_element(zi.begin(), zi.end()) - zi.begin());
      predict->slot_tags.clear();
    }
    std::vector<double> dh(static_cast<std::size_t>(D), 0.0);
    std::vector<std::vector<double>> dslot(static_cast<std::size_t>(L));
    std::vector<double> x(static_cast<std::size_t>(2 * D));
    double slot_loss = 0;
    for (int k = 0; k < L; ++k) {
      for (int d = 0; d < D; ++d) {
        x[d] = E[s.tokens[k] * D + d];
        x[D + d] = k ? E[s.tokens[k - 1] * D + d] : 0.0;
      }
      std::vector<double> z(static_cast<std::size_t>(T));
      for (int c = 0; c < T; ++c) {
        z[c] = bs[c];
        for (int d = 0; d < 2 * D; ++d) z[c] += x[d] * Ws[d * T + c];
      }
      softmax(z);
      if (predict) {
        predict->slot_tags.push_back(static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin()));
      }
      slot_loss -= std::log(std::max(z[s.tags[k]], 1e-30));
      z[s.tags[k]] -= 1.0;
      for (auto& g : z) g /= L;
      dslot[k] = z;
    }
    loss += slot_loss / L;
    if (predict) return loss;
    // Backward and update.
    zi[s.intent] -= 1.0;
    std::vector<double> dE(static_cast<std::size_t>(V * D), 0.0);
    std::vector<double> dWs(Ws.size(), 0.0), dbs(bs.size(), 0.0);
    for (int d = 0; d < D; ++d)
      for (int c = 0; c < I; ++c) dh[d] += zi[c] * Wi[d * I + c];
    for (int k = 0; k < L; ++k) {
      for (int d = 0; d < D; ++d) {
        x[d] = E[s.tokens[k] * D + d];
        x[D + d] = k ? E[s.tokens[k - 1] * D + d] : 0.0;
      }
      for (int d = 0; d < 2 * D; ++d) {
        double dx = 0;
        for (int c = 0; c < T; ++c) {
          dx += dslot[k][c] * Ws[d * T + c];
          dWs[d * T + c] += x[d] * dslot[k][c];
        }
        if (d < D) dE[s.tokens[k] * D + d] += dx;
        else if (k) dE[s.tokens[k - 1] * D + d - D] += dx;
      }
      for (int c = 0; c < T; ++c) dbs[c] += dslot[k][c];
      for (int d = 0; d < D; ++d) dE[s.tokens[k] * D + d] += dh[d] / L;
    }
    for (int d = 0; d < D; ++d)
      for (int c = 0; c < I; ++c) Wi[d * I + c] -= static_cast<float>(lr * h[d] * zi[c]);
    for (int c = 0; c < I; ++c) bi[c] -= static_cast<float>(lr * zi[c]);
    for (std::size_t i = 0; i < E.size(); ++i) E[i] -= static_cast<float>(lr * dE[i]);
    for (std::size_t i = 0; i < Ws.size(); ++i) Ws[i] -= static_cast<float>(lr * dWs[i]);
    for (std::size_t i = 0; i < bs.size(); ++i) bs[i] -= static_cast<float>(lr * dbs[i]);
    return loss;
  }

  int V, I, T, D;
  std::vector<float> E, Wi, bi, Ws, bs;
};

}  // namespace ttsim::training::testing
