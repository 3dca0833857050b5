// The training-step task graph of the 2-encoder preset: acyclic with deps pointing
// backwards, every buffer written before it is read (parameters and step inputs aside),
// exactly one SGD update per parameter buffer, task MACs equal to the flow formulas,
// meeting gradients summed by accumulating contractions (as the HLS step does).

#include "models/training_graph.h"

#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "hls/include/kernel_spec.h"
#include "models/graph_summary.h"

namespace ttsim {
namespace {

ModelSpec preset(const char* name) {
  return load_model_spec(std::string("configs/models/") + name + ".json");
}

const Buffer* find_buffer(const TaskGraph& g, const std::string& name) {
  for (const auto& b : g.buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

class TwoEncoderGraph : public ::testing::TestWithParam<Flow> {
 protected:
  void SetUp() override {
    model = preset("atis_2enc");
    GraphOptions o;
    for (const char* k : {"attention", "ffn_in", "ffn_out"}) o.flow_by_kind[k] = GetParam();
    options = o;
    graph = build_training_graph(model, options);
  }
  ModelSpec model;
  GraphOptions options;
  TaskGraph graph;
};

// Where the HLS step keeps every buffer (Buffer::memory): each buffer of a flow the kernel
// tree builds has a memory, parameters and gradients are in param_mem / grad_mem, and
// every buffer a non-contraction task touches is in one of the memories its kernel's
// arguments are bound to (task_memories), so the two descriptions agree. (Contractions take
// their memories from their operands; graph_matches_hls_test checks those against the C
// simulation's bindings.)
TEST_P(TwoEncoderGraph, EveryBufferHasTheMemoryItsTasksBindItTo) {
  if (GetParam() == Flow::kMM) GTEST_SKIP() << "the kernel tree has no MM flow: its buffers have no memory";
  for (const auto& b : graph.buffers) {
    EXPECT_NE(b.memory, 0) << b.name;
    if (b.cls == BufferClass::kParameter) EXPECT_EQ(b.memory, ttsim_spec::kParamMem) << b.name;
    if (b.cls == BufferClass::kGradient) EXPECT_EQ(b.memory, ttsim_spec::kGradMem) << b.name;
  }
  for (const auto& t : graph.tasks) {
    std::set<int> bound;
    for (int slot = 0; slot < ttsim_spec::kMaxArgumentSlots; ++slot) {
      bound.insert(ttsim_spec::memory_of(t.shape.memories, slot));
    }
    for (const auto& list : {t.reads, t.writes}) {
      for (int id : list) {
        const Buffer& b = graph.buffers[id];
        if (t.op == TaskOp::kContraction && b.memory == ttsim_spec::kIndexMem) continue;  // token ids
        EXPECT_TRUE(bound.count(b.memory)) << t.name << " touches " << b.name << " in memory " << b.memory
                                           << ", which none of its kernel's arguments is bound to";
      }
    }
  }
}

TEST_P(TwoEncoderGraph, IdsAndDepsAreTopological) {
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const auto& t = graph.tasks[i];
    EXPECT_EQ(t.id, static_cast<int>(i));
    for (int d : t.deps) {
      EXPECT_GE(d, 0);
      EXPECT_LT(d, t.id) << t.name;
    }
  }
  for (std::size_t i = 0; i < graph.buffers.size(); ++i) EXPECT_EQ(graph.buffers[i].id, int(i));
  std::set<std::string> names;
  for (const auto& t : graph.tasks) EXPECT_TRUE(names.insert(t.name).second) << t.name;
}

TEST_P(TwoEncoderGraph, EveryBufferWrittenBeforeRead) {
  std::vector<bool> written(graph.buffers.size(), false);
  for (const auto& t : graph.tasks) {
    for (int b : t.reads) {
      const auto& buf = graph.buffers[b];
      if (buf.cls == BufferClass::kParameter || buf.layer == "input") continue;
      EXPECT_TRUE(written[b]) << t.name << " reads " << buf.name << " before any write";
    }
    for (int b : t.writes) written[b] = true;
  }
  // A read after a write must depend (transitively, here directly) on the last writer.
  std::vector<int> last_writer(graph.buffers.size(), -1);
  for (const auto& t : graph.tasks) {
    for (int b : t.reads) {
      if (last_writer[b] < 0 || last_writer[b] == t.id) continue;
      EXPECT_TRUE(std::count(t.deps.begin(), t.deps.end(), last_writer[b]))
          << t.name << " does not depend on the writer of " << graph.buffers[b].name;
    }
    for (int b : t.writes) last_writer[b] = t.id;
  }
}

// One SGD task per update group (model_step.cc update_group: one call over the group's
// contiguous words): it writes the group's parameters, reads them and their gradients, and
// its trip covers exactly their words.
TEST_P(TwoEncoderGraph, OneUpdatePerParameterAfterItsGradient) {
  std::map<int, int> updates;
  for (const auto& t : graph.tasks) {
    if (t.op != TaskOp::kSgdUpdate) continue;
    EXPECT_EQ(t.stage, Stage::kUpdate);
    ASSERT_FALSE(t.writes.empty()) << t.name;
    std::int64_t words = 0;
    for (int w : t.writes) {
      ++updates[w];
      words += graph.buffers[w].words;
      const Buffer* g = find_buffer(graph, graph.buffers[w].name + ".grad");
      ASSERT_NE(g, nullptr) << graph.buffers[w].name;
      EXPECT_NE(std::find(t.reads.begin(), t.reads.end(), w), t.reads.end()) << t.name;
      EXPECT_NE(std::find(t.reads.begin(), t.reads.end(), g->id), t.reads.end()) << t.name;
    }
    EXPECT_EQ(t.shape.rows, 1) << t.name;
    EXPECT_EQ(t.shape.cols, words) << t.name;
  }
  std::int64_t param_words = 0;
  for (const auto& b : graph.buffers) {
    if (b.cls != BufferClass::kParameter) continue;
    param_words += b.words;
    EXPECT_EQ(updates[b.id], 1) << b.name;
    const Buffer* g = find_buffer(graph, b.name + ".grad");
    ASSERT_NE(g, nullptr) << b.name;
    EXPECT_EQ(g->cls, BufferClass::kGradient);
    EXPECT_EQ(g->words, b.words);
  }
  EXPECT_EQ(updates.size(), static_cast<std::size_t>(summarize(graph).buffers_by_class["parameter"]));
  // The parameter buffers hold exactly the model's compressed parameters.
  EXPECT_EQ(param_words, model.compressed_params());
}

TEST_P(TwoEncoderGraph, TaskMacsEqualFlowFormulas) {
  std::map<std::string, std::int64_t> by_layer;
  for (const auto& t : graph.tasks) by_layer[t.layer] += t.macs;
  const std::int64_t K = model.tokens();
  std::int64_t expected_total = 0;
  for (const auto& l : model.linears) {
    const std::int64_t rows = l.kind == "intent_head" ? model.batch : K;
    const auto plan = plan_linear(l, GetParam(), rows);
    std::int64_t want = 0;
    for (FlowStage s : {FlowStage::kForward, FlowStage::kGradInput, FlowStage::kGradWeights}) {
      want += stage_cost(plan, s).macs;
    }
    EXPECT_EQ(by_layer[l.name], want) << l.name;
    expected_total += want;
  }
  const auto attn = plan_attention(model.batch, model.seq_len, model.heads, model.head_dim());
  for (int e = 0; e < model.encoders; ++e) {
    const auto want = stage_cost(attn, FlowStage::kForward).macs +
                      stage_cost(attn, FlowStage::kGradInput).macs;
    EXPECT_EQ(by_layer["enc" + std::to_string(e) + ".attn"], want);
    expected_total += want;
  }
  const auto ttm = plan_ttm_lookup(model.token_embedding.ttm, K);
  const auto emb = stage_cost(ttm, FlowStage::kForward).macs +
                   stage_cost(ttm, FlowStage::kGradWeights).macs;
  EXPECT_EQ(by_layer["embedding"], emb);
  expected_total += emb;
  EXPECT_EQ(summarize(graph).total_macs, expected_total);
}

TEST_P(TwoEncoderGraph, BuffersClassifiedWithLifetimes) {
  for (const auto& b : graph.buffers) {
    EXPECT_GE(b.first_task, 0) << b.name << " is never used";
    EXPECT_GE(b.last_task, b.first_task) << b.name;
    std::int64_t w = 1;
    for (auto s : b.shape) w *= s;
    EXPECT_EQ(w, b.words) << b.name;
  }
  const auto cls = [&](const char* n) {
    const Buffer* b = find_buffer(graph, n);
    EXPECT_NE(b, nullptr) << n;
    return b ? b->cls : BufferClass::kTemporary;
  };
  EXPECT_EQ(cls("enc0.q.core1"), BufferClass::kParameter);
  EXPECT_EQ(cls("enc0.q.core1.grad"), BufferClass::kGradient);
  EXPECT_EQ(cls("enc0.attn.P"), BufferClass::kActivation);   // read by dV and softmax grad
  EXPECT_EQ(cls("enc0.attn.S"), BufferClass::kTemporary);    // consumed by the softmax
  EXPECT_EQ(cls("enc0.ln1.out"), BufferClass::kActivation);  // X of ffn_in
  EXPECT_EQ(cls("enc0.attn.dS"), BufferClass::kTemporary);
  if (GetParam() == Flow::kBTT) {
    EXPECT_EQ(cls("enc0.q.Z"), BufferClass::kActivation);
    EXPECT_EQ(cls("enc0.q.dZ"), BufferClass::kTemporary);
  }
}

TEST_P(TwoEncoderGraph, RolesForSchedulingPolicies) {
  std::map<std::string, int> roles;
  for (const auto& t : graph.tasks) {
    if (t.layer == "enc0.q") ++roles[t.role];
  }
  if (GetParam() == Flow::kBTT) {
    EXPECT_EQ(roles["btt.merge_left"], 2);
    EXPECT_EQ(roles["btt.merge_right"], 1);
    EXPECT_EQ(roles["btt.merge_right_t"], 1);  // the rank-1 end, computed transposed
    EXPECT_EQ(roles["btt.xl"], 1);
    EXPECT_EQ(roles["btt.zr"], 1);
  } else if (GetParam() == Flow::kTT) {
    EXPECT_EQ(roles["tt.step"], 6);
  } else {
    EXPECT_EQ(roles["mm.product"], 1);
    EXPECT_EQ(roles["mm.rebuild"], 5);
  }
  int qk = 0;
  for (const auto& t : graph.tasks) qk += t.role == "attn.qk";
  EXPECT_EQ(qk, model.encoders);
}

// Gradients that meet (residual skips, Q/K/V, the two heads) are summed as the HLS step
// sums them (hls/kernels/model_step.cc): the contraction producing the second dX runs with
// its accumulate flag into the first, so it reads and writes that buffer; there is no add
// task for them and no separate dX buffer.
TEST_P(TwoEncoderGraph, MeetingGradientsAccumulateInTheContraction) {
  for (const auto& t : graph.tasks) {
    if (t.op == TaskOp::kAdd && t.stage == Stage::kBackward) {
      EXPECT_TRUE(t.role == "bias.grad" || t.role == "embedding.grad" || t.role == "btt.transpose" ||
                  t.role == "ttm.transpose")
          << t.name << " " << t.role;
    }
  }
  const std::pair<const char*, const char*> into[] = {
      {"enc0.q", "enc0.ln1.dIn"}, {"enc0.k", "enc0.ln1.dIn"}, {"enc0.v", "enc0.ln1.dIn"},
      {"enc1.ffn_in", "enc1.ln2.dIn"}, {"intent_head", "slot_head.dX"}};
  for (const auto& [layer, name] : into) {
    const Buffer* acc = find_buffer(graph, name);
    ASSERT_NE(acc, nullptr) << name;
    int writers = 0;
    for (const auto& t : graph.tasks) {
      if (t.layer != layer || t.op != TaskOp::kContraction) continue;
      if (std::count(t.writes.begin(), t.writes.end(), acc->id) == 0) continue;
      ++writers;
      EXPECT_EQ(t.stage, Stage::kBackward) << t.name;
      EXPECT_EQ(std::count(t.reads.begin(), t.reads.end(), acc->id), 1) << t.name << " reads " << name;
    }
    EXPECT_EQ(writers, 1) << layer << " -> " << name;
    EXPECT_EQ(find_buffer(graph, std::string(layer) + ".dX"), nullptr) << layer;
  }
}

INSTANTIATE_TEST_SUITE_P(Flows, TwoEncoderGraph,
                         ::testing::Values(Flow::kBTT, Flow::kTT, Flow::kMM),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(TrainingGraph, SummaryCounts) {
  const auto g = build_training_graph(preset("atis_2enc"), GraphOptions{});
  const auto s = summarize(g);
  EXPECT_EQ(s.tasks, static_cast<int>(g.tasks.size()));
  EXPECT_EQ(s.tasks_by_stage.at("forward") + s.tasks_by_stage.at("backward") +
                s.tasks_by_stage.at("update"),
            s.tasks);
  // Parameters: 12 linears x (6 cores + bias) + 2 heads x (weight + bias) + 3 TTM cores
  // + position + 5 LayerNorms x 2.
  EXPECT_EQ(s.buffers_by_class.at("parameter"), 12 * 7 + 4 + 3 + 1 + 10);
  // Update groups: 12 linears + 2 heads + 4 encoder LayerNorms + the embedding's two
  // (position and its LayerNorm; the TTM cores).
  EXPECT_EQ(s.tasks_by_stage.at("update"), 12 + 2 + 4 + 2);
  EXPECT_EQ(s.tasks_by_unit.at("softmax"), 2 * 2);     // forward + grad per encoder
  EXPECT_EQ(s.tasks_by_unit.at("loss"), 2);
  EXPECT_EQ(s.tasks_by_unit.at("gelu"), 2 * 2);
  EXPECT_EQ(s.tasks_by_unit.at("layernorm"), 2 * 5);
  // One task per add call of the HLS step: forward 14 bias adds (12 linears + 2 heads),
  // 4 residual adds, the position add, 12 L_d transposes (one per BTT layer), 24 copies of
  // a first core (G_1ᵀ and G_{d+e-1}ᵀ per BTT layer), the TTM's copy of core 1 and the
  // transposed copies of its last step (E_2 → E_2ᵀ, Eᵀ → E), 12 R_2ᵀ → R_2 (the transposed
  // last right merge of each BTT layer); backward 14 bias gradients (column sums), the
  // position gradient, 12 dL_d transposes, the TTM's two (dE → dEᵀ, dE_2ᵀ → dE_2) and three
  // per BTT layer at the right chain's end (dR_2 → dR_2ᵀ, G_5 → G_5ᵀ, dG_5ᵀ → dG_5). The
  // residual, Q/K/V and heads gradient sums are contractions' accumulate flags, not adds
  // (tests/models/graph_matches_hls_test).
  EXPECT_EQ(s.tasks_by_unit.at("elementwise"),
            14 + 4 + 1 + 12 + 24 + 1 + 2 + 12 + 14 + 1 + 12 + 2 + 3 * 12);
}

TEST(TrainingGraph, DenseEmbeddingAndOtherTokenCounts) {
  auto m = preset("atis_2enc");
  m.token_embedding.format = WeightFormat::kDense;
  GraphOptions o;
  o.tokens = 64;  // two sequences of 32
  const auto g = build_training_graph(m, o);
  const Buffer* table = find_buffer(g, "embedding.table");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->words, 2500 * 768);
  const Buffer* logits = find_buffer(g, "intent_head.Y");
  ASSERT_NE(logits, nullptr);
  EXPECT_EQ(logits->words, 2 * 26);
  for (const auto& t : g.tasks) {
    for (int d : t.deps) EXPECT_LT(d, t.id);
  }
}

// Encoders recomputed before their backward (GraphOptions::recompute_encoders) on the
// 4-encoder preset: encoders 0-2 run their forward again in the backward stage, right before
// their own backward and after the later encoder's, as "<layer>.re.<step>" tasks with the
// forward's shapes; the last encoder is not recomputed; the backward reads the recomputed
// activations, which are activations live from their recomputation only; the forward's
// copies of them die in the forward pass.
TEST(TrainingGraph, RecomputedEncodersRunTheirForwardAgainBeforeTheirBackward) {
  const ModelSpec model = preset("atis_4enc");
  GraphOptions kept;
  GraphOptions re;
  re.recompute_encoders = true;
  const TaskGraph a = build_training_graph(model, kept), b = build_training_graph(model, re);
  std::map<std::string, const Task*> by_name;
  for (const Task& t : b.tasks) by_name[t.name] = &t;
  std::map<int, std::int64_t> forward_macs, recompute_macs;
  std::map<int, int> recomputed;
  for (const Task& t : a.tasks) {
    if (t.stage == Stage::kForward && t.encoder >= 0) forward_macs[t.encoder] += t.macs;
  }
  for (const Task& t : b.tasks) {
    if (t.name.find(".re.") == std::string::npos) continue;
    EXPECT_EQ(t.stage, Stage::kBackward) << t.name;
    ++recomputed[t.encoder];
    recompute_macs[t.encoder] += t.macs;
    // The recomputation has the forward's shape, task for task.
    std::string fwd = t.name;
    fwd.erase(fwd.find(".re."), 3);
    ASSERT_TRUE(by_name.count(fwd)) << fwd;
    EXPECT_EQ(by_name[fwd]->shape.rows, t.shape.rows) << t.name;
    EXPECT_EQ(by_name[fwd]->shape.cols, t.shape.cols) << t.name;
    EXPECT_EQ(by_name[fwd]->shape.inner, t.shape.inner) << t.name;
    EXPECT_EQ(by_name[fwd]->shape.variant, t.shape.variant) << t.name;
  }
  EXPECT_EQ(recomputed.size(), 3u);
  EXPECT_FALSE(recomputed.count(3)) << "the last encoder is recomputed";
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(recompute_macs[e], forward_macs[e]) << "encoder " << e;
    int per_encoder_forward = 0;
    for (const Task& t : a.tasks) per_encoder_forward += t.stage == Stage::kForward && t.encoder == e;
    EXPECT_EQ(recomputed[e], per_encoder_forward) << "encoder " << e;
    // Its recomputation runs after the later encoder's last backward task and before its own first.
    const Task* first_re = by_name.at("enc" + std::to_string(e) + ".q.re.fwd.copy_left");
    for (const Task& t : b.tasks) {
      if (t.stage != Stage::kBackward || t.name.find(".re.") != std::string::npos) continue;
      if (t.encoder == e + 1) {
        EXPECT_LT(t.id, first_re->id) << t.name;
      } else if (t.encoder == e) {
        EXPECT_GT(t.id, first_re->id) << t.name;
      }
    }
  }
  // The backward reads the recomputed copies; they are activations, the forward's copies
  // temporaries.
  const Buffer* y = find_buffer(b, "enc0.q.Y");
  const Buffer* ry = find_buffer(b, "enc0.q.re.Y");
  ASSERT_TRUE(y && ry);
  EXPECT_EQ(ry->cls, BufferClass::kActivation);
  EXPECT_EQ(y->cls, BufferClass::kTemporary);
  EXPECT_EQ(b.tasks[static_cast<std::size_t>(y->last_task)].stage, Stage::kForward);
  EXPECT_EQ(ry->memory, y->memory);
  EXPECT_EQ(a.tasks.size() + 3 * static_cast<std::size_t>(recomputed[0]), b.tasks.size());
}

}  // namespace
}  // namespace ttsim
