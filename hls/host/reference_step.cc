#include "hls/host/reference_step.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "hls/host/hls_model.h"
#include "models/reference/reference_model.h"

namespace ttsim {

namespace {

template <typename T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
void put_all(std::string& out, const std::vector<T>& v) {
  if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

/// Row-major FP32 copy of a reference matrix.
template <typename M>
std::vector<float> flat(const M& m) {
  std::vector<float> v;
  v.reserve(static_cast<std::size_t>(m.rows() * m.cols()));
  for (int i = 0; i < m.rows(); ++i) {
    for (int j = 0; j < m.cols(); ++j) v.push_back(static_cast<float>(m(i, j)));
  }
  return v;
}

}  // namespace

std::string reference_step_file(const ModelSpec& model) {
  reference::ReferenceModel ref(model);
  // The host model arranges tensors in the parameter arena's Layout order; the reference's
  // starting point, rounded to FP32, is what both run from.
  HlsModel params(model), grads(model);
  for (const auto& name : params.parameter_names()) {
    auto& p = ref.parameter(name);
    for (int i = 0; i < p.rows(); ++i) {
      for (int j = 0; j < p.cols(); ++j) p(i, j) = static_cast<float>(p(i, j));
    }
    params.set_parameter(name, flat(p));
  }
  const int K = static_cast<int>(model.seq_len);
  std::vector<int> tokens, tags;
  for (int i = 0; i < K; ++i) {
    tokens.push_back(static_cast<int>((i * 193 + 17) % model.vocab));
    tags.push_back(i % 10 == 4 ? -1 : static_cast<int>((i * 7) % model.slot_tags));
  }
  const int intent = static_cast<int>(11 % model.intents);
  const auto step = ref.forward_backward(tokens, intent, tags);
  for (const auto& name : grads.parameter_names()) grads.set_parameter(name, flat(ref.gradient(name)));

  const ttsim_hls::Layout& L = params.layout();
  std::string out = "TTRS";
  put(out, std::int32_t{1});
  put(out, std::int32_t{K});
  put(out, std::int32_t{intent});
  put(out, static_cast<std::int32_t>(params.parameters().size()));  // the arena's words, padding included
  put(out, static_cast<std::int32_t>(L.n_tensors));
  put(out, 1.0f);
  put_all(out, tokens);
  put_all(out, tags);
  for (int t = 0; t < L.n_tensors; ++t) {
    put(out, static_cast<std::int32_t>(L.tensors[t].offset));
    put(out, static_cast<std::int32_t>(L.tensors[t].words));
  }
  put_all(out, params.parameters());
  put(out, step.intent_loss);
  put(out, step.slot_loss);
  put_all(out, grads.parameters());
  return out;
}

}  // namespace ttsim
