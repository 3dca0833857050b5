// Construction of the training-step task graph (models/training_graph.h).
//
// Forward: token embedding (TTM contraction chain or dense gather) + position embedding,
// embedding LayerNorm; per encoder Q/K/V projections, attention (plan_attention), O
// projection, residual add, LayerNorm, FFN-in, GELU, FFN-out, residual add, LayerNorm;
// intent head on the first token of each sequence and slot head on every token.
// Backward: the two softmax cross-entropy losses (loss value and gradient w.r.t. the
// logits), then every layer in reverse with the gradients of all parameters, bias
// gradients (column sums of dY) included. Update: one kSgdUpdate per parameter buffer, fused
// into the backward pass: each update group (a linear layer, an encoder LayerNorm, a head,
// the embedding) right after its backward, as model_train_step does.
// One task per kernel call of the HLS step (hls/kernels/model_step.cc), with its shape and
// variant (tests/models/graph_matches_hls_test): gradients that meet (the two residual
// skips, the Q/K/V projections, the intent and slot heads) are not summed by add tasks —
// the contraction that produces the second dX accumulates into the first (it reads and
// writes that buffer), as the kernels do with the contraction's accumulate flag.
// Dependencies are derived from the buffers' reads and writes in task order (read after
// write, write after write, write after read), so the task order is topological.

#include "models/training_graph.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"

namespace ttsim {

namespace {

using I = std::int64_t;

TaskShape rows_cols(I rows, I cols, I batch = 1) {
  TaskShape s;
  s.batch = batch;
  s.rows = rows;
  s.cols = cols;
  return s;
}

/// TaskShape::memories of a task other than a contraction: the top memory of each kernel
/// argument as the HLS step binds them (the arena plan of hls/kernels/model_step.h); every
/// such kernel's arguments come from fixed arenas. (A contraction's come from where its
/// operands live: Builder::contraction_memories.) tests/models/graph_matches_hls_test
/// checks both against the real step's bindings.
std::uint64_t task_memories(TaskOp op, int variant, const std::string& role) {
  using namespace ttsim_spec;
  const KernelSpec& k = kKernelSpecs[kernel_index(to_string(op))];
  std::uint64_t m = 0;
  auto set = [&](const char* array, int memory) { m = with_memory(m, kernel_array_slot(k, array), memory); };
  switch (op) {
    case TaskOp::kContraction:
      throw std::logic_error("task_memories: a contraction's memories are its operands' (contraction_memories)");
    case TaskOp::kSoftmax:
      set("in", kSaved1Mem), set("out", kSaved1Mem), set("stat", kChain1Mem);
      break;
    case TaskOp::kSoftmaxGrad:
      set("P", kSaved1Mem), set("d", kBwdAMem), set("stat", kChain1Mem);
      break;
    case TaskOp::kLayerNorm:
      set("x", kActMem), set("gamma", kParamMem), set("beta", kParamMem), set("y", kActMem);
      set("xhat", kSaved1Mem), set("stat", kChain1Mem), set("rstd", kSaved1Mem);
      break;
    case TaskOp::kLayerNormGrad:
      // dy and dx alternate between bwd_a_mem and bwd_b_mem (one in each).
      set("dy", kBwdAMem), set("gamma", kParamMem), set("xhat", kSaved1Mem), set("dx", kBwdBMem);
      set("stat", kChain1Mem), set("rstd", kSaved1Mem), set("dgamma", kGradMem), set("dbeta", kGradMem);
      break;
    case TaskOp::kGelu:
      set("x", kOutMem), set("y", kActMem);
      break;
    case TaskOp::kGeluGrad:
      set("x", kOutMem), set("d", kBwdCMem);
      break;
    case TaskOp::kAdd:
      if (variant == kAddTranspose) {  // forward L_d -> L_d^T; every call's buffers override these
        set("x", kChain1Mem), set("out", kSaved0Mem);
      } else if (variant == kAddAccumulate) {
        if (role == "bias.add" || role == "embedding.add") {  // Y += b, E += position (param into out)
          set("x", kParamMem), set("acc", kOutMem);
        } else if (role == "residual.add") {  // o.y += h, ffn_out.y += h1 (act into out)
          set("x", kActMem), set("acc", kOutMem);
        } else if (role == "embedding.lookup_add") {  // the dense table's rows (+ position) into x0
          set("x", kParamMem), set("acc", kActMem);
        } else {
          set("x", kBwdBMem), set("acc", kGradMem);
        }
      } else {
        set("x", kBwdBMem), set("sum", kGradMem);
      }
      break;
    case TaskOp::kLoss:
      set("logits", kOutMem), set("dlogits", kBwdBMem), set("labels", kIndexMem), set("stat", kChain1Mem);
      break;
    case TaskOp::kSgdUpdate:
      set("w", kParamMem), set("g", kGradMem);
      break;
  }
  return m;
}

/// One kernel argument bound by a task's buffer: the argument, 'r' / 'w' for the task's
/// reads / writes, and the position there.
struct ArgumentBinding {
  const char* arg;
  char list;
  std::size_t index;
};

/// The kernel arguments a task of `op` (variant `variant`) binds to its buffers, in the
/// order the builder lists them (TrainingGraph below); a LayerNorm's statistics buffer
/// holds both x^ and 1/sigma.
std::vector<ArgumentBinding> kernel_arguments(TaskOp op, int variant) {
  switch (op) {
    case TaskOp::kSoftmax: return {{"in", 'r', 0}, {"out", 'w', 0}};
    case TaskOp::kSoftmaxGrad: return {{"P", 'r', 0}, {"d", 'r', 1}, {"d", 'w', 0}};
    case TaskOp::kLayerNorm:
      return {{"x", 'r', 0}, {"gamma", 'r', 1}, {"beta", 'r', 2}, {"y", 'w', 0}, {"xhat", 'w', 1}, {"rstd", 'w', 1}};
    case TaskOp::kLayerNormGrad:
      return {{"dy", 'r', 0},     {"xhat", 'r', 1},   {"rstd", 'r', 1},  {"gamma", 'r', 2},
              {"dx", 'w', 0},     {"dgamma", 'w', 1}, {"dbeta", 'w', 2}};
    case TaskOp::kGelu: return {{"x", 'r', 0}, {"y", 'w', 0}};
    case TaskOp::kGeluGrad: return {{"d", 'r', 0}, {"x", 'r', 1}, {"d", 'w', 0}};
    case TaskOp::kAdd:
      if (variant == ttsim_spec::kAddAccumulate) return {{"x", 'r', 0}, {"acc", 'w', 0}};
      if (variant == ttsim_spec::kAddColumnSum) return {{"x", 'r', 0}, {"sum", 'w', 0}};
      if (variant == ttsim_spec::kAddTranspose) return {{"x", 'r', 0}, {"out", 'w', 0}};
      break;
    case TaskOp::kLoss: return {{"logits", 'r', 0}, {"labels", 'r', 1}, {"dlogits", 'w', 0}, {"stat", 'w', 1}};
    case TaskOp::kSgdUpdate: return {{"w", 'r', 0}, {"g", 'r', 1}};
    case TaskOp::kContraction: break;
  }
  return {};
}

class Builder {
 public:
  /// A new buffer; names are unique. `memory`: the ttsim_spec::MemoryId of the HLS top
  /// that holds it (Buffer::memory; 0 = none).
  int buffer(const std::string& name, const std::string& layer, std::vector<I> shape, int memory = 0) {
    const int id = static_cast<int>(g_.buffers.size());
    if (!by_name_.emplace(name, id).second) throw std::logic_error("duplicate buffer " + name);
    Buffer b;
    b.id = id;
    b.name = name;
    b.layer = layer;
    b.memory = memory;
    b.shape = std::move(shape);
    b.words = 1;
    for (auto s : b.shape) b.words *= s;
    g_.buffers.push_back(std::move(b));
    readers_.emplace_back();
    last_writer_.push_back(-1);
    return id;
  }

  /// A parameter buffer and its gradient buffer "<name>.grad".
  int parameter(const std::string& name, const std::string& layer, std::vector<I> shape) {
    const int p = buffer(name, layer, shape, ttsim_spec::kParamMem);
    const int gr = buffer(name + ".grad", layer, shape, ttsim_spec::kGradMem);
    params_.push_back(p);
    grad_of_.resize(g_.buffers.size(), -1);
    grad_of_[p] = gr;
    return p;
  }
  int grad(int param) const {
    const int g = param >= 0 && param < static_cast<int>(grad_of_.size()) ? grad_of_[param] : -1;
    if (g < 0) throw std::logic_error("buffer " + std::to_string(param) + " is not a parameter");
    return g;
  }

  /// TaskShape::memories of a kernel other than the contraction: task_memories, with every
  /// argument that a read or written buffer binds (kernel_arguments) taken from where that
  /// buffer lives (Buffer::memory), so a task's arguments and its buffers agree.
  std::uint64_t bound_memories(TaskOp op, int variant, const std::string& role, const std::vector<int>& reads,
                               const std::vector<int>& writes) const {
    using namespace ttsim_spec;
    const KernelSpec& k = kKernelSpecs[kernel_index(to_string(op))];
    std::uint64_t m = task_memories(op, variant, role);
    for (const auto& [arg, list, index] : kernel_arguments(op, variant)) {
      const std::vector<int>& ids = list == 'r' ? reads : writes;
      if (index >= ids.size() || g_.buffers[ids[index]].memory == 0) continue;
      m = with_memory(m, kernel_array_slot(k, arg), g_.buffers[ids[index]].memory);
    }
    return m;
  }

  /// TaskShape::memories of a contraction from where its operands live (Buffer::memory):
  /// A and B are the first two reads outside index_mem (the token ids of a TTM lookup are
  /// its index tables), C the written buffer; the index tables are in index_mem. An operand
  /// the kernel tree does not place makes A and B kSharedInputs (one memory, the worst case
  /// for their ports) or C a memory of its own.
  std::uint64_t contraction_memories(const std::vector<int>& reads, const std::vector<int>& writes) const {
    using namespace ttsim_spec;
    const KernelSpec& k = kKernelSpecs[kernel_index(to_string(TaskOp::kContraction))];
    std::vector<int> in;
    for (int r : reads) {
      if (g_.buffers[r].memory != kIndexMem && (writes.empty() || r != writes[0])) in.push_back(g_.buffers[r].memory);
    }
    const int a = in.size() > 0 ? in[0] : 0, b = in.size() > 1 ? in[1] : 0;
    const bool placed = a != 0 && b != 0;
    const int c = writes.empty() ? 0 : g_.buffers[writes[0]].memory;
    std::uint64_t m = 0;
    m = with_memory(m, kernel_array_slot(k, "A"), placed ? a : kSharedInputs);
    m = with_memory(m, kernel_array_slot(k, "B"), placed ? b : kSharedInputs);
    m = with_memory(m, kernel_array_slot(k, "C"), c);
    m = with_memory(m, kernel_array_slot(k, "index"), kIndexMem);
    return m;
  }
  int id(const std::string& name) const { return by_name_.at(name); }
  /// The number of call site `site` (Task::site): an encoder's task without its "enc<e>."
  /// prefix (the top calls every encoder from one loop), told apart by its role and the arrays
  /// its arguments bind (`memories`, TaskShape::memories) — each call site of the glue binds
  /// fixed arrays, so steps of one name that bind others, or play another role, are other
  /// sites (the branches of a layer whose encoders differ in ranks or accumulation).
  int site_id(const std::string& site, int encoder, const std::string& role, std::uint64_t memories) {
    std::string key = site;
    const std::string prefix = "enc" + std::to_string(encoder) + ".";
    if (encoder >= 0 && key.compare(0, prefix.size(), prefix) == 0) key = "enc." + key.substr(prefix.size());
    key += "|" + role + "|" + std::to_string(memories);
    return site_ids_.emplace(std::move(key), static_cast<int>(site_ids_.size())).first->second;
  }
  void reserve(std::size_t tasks, std::size_t buffers) {
    g_.tasks.reserve(tasks);
    g_.buffers.reserve(buffers);
    by_name_.reserve(buffers);
    site_ids_.reserve(tasks);
    readers_.reserve(buffers);
    last_writer_.reserve(buffers);
  }
  const Buffer& buf(int id) const { return g_.buffers[id]; }

  /// While set, every task added is a recomputation (an encoder's forward run again before
  /// its backward): it runs in the backward stage, and what it writes counts as a forward
  /// value (an activation when the backward reads it).
  void recomputing(bool on) { recomputing_ = on; }

  /// Appends a task; its deps are every earlier task it conflicts with on a buffer.
  /// `site`: the name of the task's call site (FlowStep::site), "" for `name`.
  int task(const std::string& name, TaskOp op, Stage stage, const std::string& layer,
           int encoder, const std::string& role, const TaskShape& shape,
           std::vector<int> reads, std::vector<int> writes, const std::string& site = {}) {
    Task t;
    t.id = static_cast<int>(g_.tasks.size());
    t.name = name;
    t.op = op;
    t.unit = unit_of(op);
    t.stage = recomputing_ ? Stage::kBackward : stage;
    t.recompute = recomputing_;
    t.layer = layer;
    t.encoder = encoder;
    t.role = role;
    t.shape = shape;
    // Add kernels (hls/include/kernel_spec.h): the bias gradient is a column sum of dY, the
    // embedding gradients accumulate into distinct elements, BTT's L_d / dL_d transposes
    // and the first-core copies are transposed copies, every other add accumulates into its
    // output (bias, position and residual adds in place; the dense table's lookup, which the
    // kernel tree does not build, priced the same way).
    if (op == TaskOp::kAdd) {
      t.shape.variant = role == "bias.grad"        ? ttsim_spec::kAddColumnSum
                        : role == "btt.transpose" || role == "ttm.copy" || role == "ttm.transpose"
                                                       ? ttsim_spec::kAddTranspose
                                                   : ttsim_spec::kAddAccumulate;
    }
    // A contraction that reads a buffer it writes accumulates into it (the kernel's
    // accumulate flag: C_old read at the first reduction step); in the column form that is
    // the column_acc loop (hls/include/kernel_spec.h).
    t.shape.variant = task_variant(op, t.shape.variant, reads, writes);
    t.shape.memories = op == TaskOp::kContraction ? contraction_memories(reads, writes)
                                                  : bound_memories(op, t.shape.variant, role, reads, writes);
    t.site = site_id(site.empty() ? name : site, encoder, role, t.shape.memories);
    if (op == TaskOp::kContraction) {
      t.macs = shape.macs();
    } else {
      t.elements = shape.elements();
    }
    dedupe(reads);
    dedupe(writes);
    std::vector<int>& deps = t.deps;
    for (int r : reads) {
      if (last_writer_[r] >= 0) deps.push_back(last_writer_[r]);
    }
    for (int w : writes) {
      if (last_writer_[w] >= 0) deps.push_back(last_writer_[w]);
      deps.insert(deps.end(), readers_[w].begin(), readers_[w].end());
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    deps.erase(std::remove(deps.begin(), deps.end(), t.id), deps.end());
    for (int r : reads) readers_[r].push_back(t.id);
    for (int w : writes) {
      last_writer_[w] = t.id;
      readers_[w].clear();
    }
    t.reads = std::move(reads);
    t.writes = std::move(writes);
    g_.tasks.push_back(std::move(t));
    return g_.tasks.back().id;
  }

  /// The SGD update of one update group, parameters `params` in layout order (the fused
  /// update: the HLS step updates each group as soon as its gradients are complete, by one
  /// sgd_update call over the group's contiguous words — model_step.cc update_group): one
  /// task "<name>.sgd" of 1 × Σ words reading the parameters and their gradients, writing
  /// the parameters.
  void sgd_group(const std::string& name, const std::vector<int>& params) {
    if (params.empty()) throw std::logic_error("update group " + name + " has no parameter");
    if (updated_.size() < g_.buffers.size()) updated_.resize(g_.buffers.size(), 0);
    std::vector<int> reads, writes;
    std::int64_t words = 0;
    std::string layer;
    for (int p : params) {
      const Buffer& b = g_.buffers[p];
      if (updated_[p]++) throw std::logic_error("parameter " + b.name + " updated twice");
      if (layer.empty()) layer = b.layer;
      words += b.words;
      reads.push_back(p);
      reads.push_back(grad(p));
      writes.push_back(p);
    }
    task(name + ".sgd", TaskOp::kSgdUpdate, Stage::kUpdate, layer, encoder_of(layer), "", rows_cols(1, words),
         std::move(reads), std::move(writes));
  }

  /// Classes and first/last use; returns the graph. Every parameter must have been
  /// updated (sgd) once.
  TaskGraph finish() {
    updated_.resize(g_.buffers.size(), 0);
    for (int p : params_) {
      if (!updated_[p]) throw std::logic_error("parameter " + g_.buffers[p].name + " is never updated");
    }
    std::vector<char> is_param(g_.buffers.size(), 0), is_grad(g_.buffers.size(), 0);
    for (int p : params_) {
      is_param[p] = 1;
      is_grad[grad_of_[p]] = 1;
    }
    std::vector<bool> fwd_value(g_.buffers.size(), false), read_bwd(g_.buffers.size(), false),
        written(g_.buffers.size(), false);
    for (const auto& t : g_.tasks) {
      const bool recompute = t.recompute;
      for (int b : t.reads) {
        touch(b, t.id);
        if (t.stage == Stage::kBackward && !recompute) read_bwd[b] = true;
      }
      for (int b : t.writes) {
        touch(b, t.id);
        written[b] = true;
        if (t.stage == Stage::kForward || recompute) fwd_value[b] = true;
      }
    }
    for (auto& b : g_.buffers) {
      if (is_param[b.id]) {
        b.cls = BufferClass::kParameter;
      } else if (is_grad[b.id]) {
        b.cls = BufferClass::kGradient;
      } else if ((fwd_value[b.id] || !written[b.id]) && read_bwd[b.id]) {
        // Forward values (and step inputs) that the backward pass reads.
        b.cls = BufferClass::kActivation;
      } else {
        b.cls = BufferClass::kTemporary;
      }
    }
    return std::move(g_);
  }

  static int encoder_of(const std::string& layer) {
    if (layer.rfind("enc", 0) != 0) return -1;
    const auto dot = layer.find('.');
    return std::stoi(layer.substr(3, dot - 3));
  }

 private:
  /// Drops repeated ids, keeping the first of each in order (in place).
  static void dedupe(std::vector<int>& v) {
    auto kept = v.begin();  // v[0, kept) holds the ids seen so far
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (std::find(v.begin(), kept, *it) == kept) *kept++ = *it;
    }
    v.erase(kept, v.end());
  }
  void touch(int b, int task) {
    auto& buf = g_.buffers[b];
    if (buf.first_task < 0) buf.first_task = task;
    buf.last_task = std::max(buf.last_task, task);
  }

  TaskGraph g_;
  std::unordered_map<std::string, int> by_name_;
  std::unordered_map<std::string, int> site_ids_;  ///< Task::site by site name
  std::vector<std::vector<int>> readers_;
  std::vector<int> last_writer_;
  std::vector<int> params_;
  std::vector<int> grad_of_;  // by buffer id: the gradient of a parameter, else -1
  std::vector<char> updated_;  // by buffer id: the parameter's sgd task was added
  bool recomputing_ = false;
};

Stage stage_of(FlowStage s) { return s == FlowStage::kForward ? Stage::kForward : Stage::kBackward; }

/// A flow plan bound to the buffers of one layer: local tensor names → buffer ids.
/// Intermediates become buffers "<layer>.<tensor>" on first use.
class BoundPlan {
 public:
  BoundPlan(Builder& b, FlowPlan plan, std::string layer, int encoder, std::string tag = "")
      : BoundPlan(b, std::make_shared<const FlowPlan>(std::move(plan)), std::move(layer), encoder, std::move(tag)) {}
  /// A plan shared by the layers of one shape (TrainingGraph::linear_plan). `tag` goes
  /// between the layer and the step or tensor in the names of its forward steps' tasks and
  /// of the intermediates they create (".re" for a recomputation).
  BoundPlan(Builder& b, std::shared_ptr<const FlowPlan> plan, std::string layer, int encoder,
            std::string tag = "")
      : b_(b), plan_(std::move(plan)), layer_(std::move(layer)), encoder_(encoder), tag_(std::move(tag)) {}

  void bind(const std::string& tensor, int buffer) { ids_[tensor] = buffer; }
  /// The steps that write `tensor` add into it (the kernel's `accumulate` flag: C is read
  /// at the first reduction step), so they read it too.
  void accumulate(const std::string& tensor) { accumulated_.insert(tensor); }
  /// The step of role `role` that writes the accumulated `tensor` writes a partial buffer
  /// "<layer>.<tensor>.part" in `memory` instead, and an add task of it into `tensor`
  /// ("<step>.add", role "grad_input.add") follows it: ttsim_spec::accumulate_by_add, as
  /// hls/kernels/tt_linear.cc btt_backward_products runs it.
  void accumulate_by_add(const std::string& role, const std::string& tensor, int memory) {
    by_add_role_ = role;
    by_add_tensor_ = tensor;
    by_add_memory_ = memory;
  }
  bool bound(const std::string& tensor) const { return ids_.count(tensor) > 0; }
  int id(const std::string& tensor) {
    auto it = ids_.find(tensor);
    if (it != ids_.end()) return it->second;
    const FlowTensor& t = plan_->tensor(tensor);
    if (t.kind != TensorKind::kIntermediate) {
      throw std::logic_error(layer_ + ": unbound flow tensor " + tensor);
    }
    return ids_[tensor] = b_.buffer(layer_ + step_tag_ + "." + tensor, layer_, t.shape, t.memory);
  }
  const FlowPlan& plan() const { return *plan_; }

  /// Emits the steps of `stage` as tasks (every backward step, grad-input and
  /// grad-weights, in plan order when `stage` is kGradInput and `all_backward` is set: the
  /// order the HLS kernels run them in); `extra_reads` are added to every step (the token
  /// ids of a TTM lookup).
  void emit(FlowStage stage, const std::vector<int>& extra_reads = {}, bool all_backward = false) {
    for (const auto& s : plan_->steps) {
      const bool take = s.stage == stage || (all_backward && s.stage != FlowStage::kForward);
      if (!take) continue;
      // A recomputation's tag names its forward steps and what they create; the backward
      // steps keep the layer's own names.
      step_tag_ = s.stage == FlowStage::kForward ? tag_ : std::string();
      // The extra reads (the TTM's token ids: the contraction's index tables) go to the
      // contractions only; the other kernels take no index argument.
      std::vector<int> reads = s.op == TaskOp::kContraction ? extra_reads : std::vector<int>{}, writes;
      for (const auto& r : s.reads) reads.push_back(id(r));
      int by_add = -1, part = -1;  // the accumulated tensor reached through a partial and an add
      for (const auto& w : s.writes) {
        if (accumulated_.count(w) && s.role == by_add_role_ && w == by_add_tensor_) {
          by_add = id(w);
          part = b_.buffer(layer_ + "." + w + ".part", layer_, plan_->tensor(w).shape, by_add_memory_);
          writes.push_back(part);
          continue;
        }
        writes.push_back(id(w));
        if (accumulated_.count(w)) reads.push_back(id(w));
      }
      const std::string name = layer_ + step_tag_ + "." + s.name;
      const std::string site = s.site.empty() ? name : layer_ + step_tag_ + "." + s.site;
      b_.task(name, s.op, stage_of(s.stage), layer_, encoder_, s.role, s.shape, reads, writes, site);
      if (by_add >= 0) {
        const auto& shape = plan_->tensor(by_add_tensor_).shape;
        b_.task(name + ".add", TaskOp::kAdd, stage_of(s.stage), layer_, encoder_, "grad_input.add",
                rows_cols(shape.at(0), shape.at(1)), {part, by_add}, {by_add}, site + ".add");
      }
    }
  }

 private:
  Builder& b_;
  std::shared_ptr<const FlowPlan> plan_;
  std::string layer_;
  int encoder_;
  std::string tag_;
  std::string step_tag_;  ///< tag_ while a forward step is emitted, else empty
  std::map<std::string, int> ids_;
  std::set<std::string> accumulated_;
  std::string by_add_role_, by_add_tensor_;  ///< accumulate_by_add
  int by_add_memory_ = 0;
};

class TrainingGraph {
 public:
  TrainingGraph(const ModelSpec& m, const GraphOptions& o) : m_(m), o_(o) {
    K_ = o.tokens > 0 ? o.tokens : m.tokens();
    // K tokens are K / seq_len sequences when K is a multiple of seq_len, else one sequence.
    sequences_ = K_ % m.seq_len == 0 ? K_ / m.seq_len : 1;
    L_ = K_ / sequences_;
  }

  TaskGraph build() {
    // About 185 tasks and 185 buffers per encoder with the BTT flow (atis presets: 1,124
    // and 1,105 for 6 encoders); reserved so the vectors are not moved as they grow (a
    // flow with more steps grows them once).
    b_.reserve(64 + 192 * static_cast<std::size_t>(m_.encoders), 64 + 192 * static_cast<std::size_t>(m_.encoders));
    // The token ids become TTM slice offsets and the labels follow them in index_mem.
    ids_ = b_.buffer("input.token_ids", "input", {K_}, ttsim_spec::kIndexMem);
    intent_labels_ = b_.buffer("input.intent_labels", "input", {sequences_}, ttsim_spec::kIndexMem);
    slot_labels_ = b_.buffer("input.slot_labels", "input", {K_}, ttsim_spec::kIndexMem);

    int h = embedding_forward();
    std::vector<Encoder> encs;
    for (int e = 0; e < m_.encoders; ++e) encs.push_back(encoder_forward(e, h, &h));
    const int last = h;
    auto intent = linear_forward(linear("intent_head"), last, sequences_);
    auto slot = linear_forward(linear("slot_head"), last, K_);

    const int d_intent = loss("intent", intent.y, intent_labels_, sequences_, m_.intents);
    const int d_slot = loss("slot", slot.y, slot_labels_, K_, m_.slot_tags);
    const int dx_slot = linear_backward(slot, d_slot, -1, ttsim_spec::kBwdAMem);
    // The intent head read row 0 of each sequence: its dX product adds into those rows of
    // the slot head's dX (accumulate flag), no separate add.
    linear_backward(intent, d_intent, dx_slot);
    int dh = dx_slot;
    for (int e = m_.encoders - 1; e >= 0; --e) {
      // The last encoder's activations are still those of the forward pass.
      if (o_.recompute_encoders && e < m_.encoders - 1) {
        int h_out = -1;
        encs[e] = encoder_forward(e, encs[e].h_in, &h_out, &encs[e]);
      }
      dh = encoder_backward(encs[e], dh);
    }
    embedding_backward(dh);
    return b_.finish();
  }

 private:
  std::map<std::string, std::shared_ptr<const FlowPlan>> plans_;  // linear_plan
  struct Linear {
    const LinearLayerSpec* spec = nullptr;
    std::shared_ptr<BoundPlan> plan;
    int x = -1, y = -1, bias = -1;
    I tokens = 0;
    std::vector<int> params;  ///< cores (or weight), then bias: the layer's update group
  };
  struct LayerNormBufs {
    std::string layer;
    int in = -1, out = -1, stats = -1, gain = -1, bias = -1;
  };
  struct Encoder {
    int e = 0;
    int h_in = -1;
    Linear q, k, v, o, ffn_in, ffn_out;
    std::shared_ptr<BoundPlan> attn;
    LayerNormBufs ln1, ln2;
  };

  const LinearLayerSpec& linear(const std::string& name) const {
    for (const auto& l : m_.linears) {
      if (l.name == name) return l;
    }
    throw InputError(m_.source_file + ": model has no layer \"" + name + "\"");
  }

  Flow flow_for(const LinearLayerSpec& l) const {
    auto it = o_.flow_by_kind.find(l.kind);
    return it == o_.flow_by_kind.end() ? Flow::kBTT : it->second;
  }

  /// plan_linear(l, flow, tokens, recompute), built once per distinct (format, dimensions,
  /// TT shape, flow, tokens) of the graph: the layers of one kind and rank share their plan.
  std::shared_ptr<const FlowPlan> linear_plan(const LinearLayerSpec& l, Flow flow, I tokens) {
    std::string key = std::to_string(static_cast<int>(l.format)) + ' ' + std::to_string(l.in_dim) + ' ' +
                      std::to_string(l.out_dim) + ' ' + std::to_string(static_cast<int>(flow)) + ' ' +
                      std::to_string(tokens) + (o_.recompute_merges ? " re" : "");
    for (const auto* v : {&l.tt.in_factors, &l.tt.out_factors, &l.tt.ranks}) {
      key += '|';
      for (auto x : *v) key += std::to_string(x) + ',';
    }
    auto it = plans_.find(key);
    if (it == plans_.end()) {
      it = plans_.emplace(key, std::make_shared<const FlowPlan>(plan_linear(l, flow, tokens, o_.recompute_merges)))
               .first;
    }
    return it->second;
  }

  /// Parameters of the layer, the forward steps and the bias add; output "<layer>.Y" in
  /// `y_memory` (out_mem; the K projection's in act_mem: model_step.h kKeyArena). With
  /// `again` (an encoder's recomputation, GraphOptions::recompute_encoders) the layer's
  /// forward runs once more on `again`'s parameters, its tasks and new buffers tagged
  /// ".re" ("<layer>.re.Y").
  Linear linear_forward(const LinearLayerSpec& l, int x, I tokens, int y_memory = ttsim_spec::kOutMem,
                        const Linear* again = nullptr) {
    const std::string tag = again ? ".re" : "";
    Linear out = again ? *again : Linear{};
    out.spec = &l;
    out.x = x;
    out.tokens = tokens;
    out.plan = std::make_shared<BoundPlan>(b_, linear_plan(l, flow_for(l), tokens), l.name, l.encoder, tag);
    BoundPlan& p = *out.plan;
    if (l.format == WeightFormat::kTT) {
      for (std::size_t k = 1; k <= l.tt.cores(); ++k) {
        const auto& t = p.plan().tensor("G" + std::to_string(k));
        const int c = again ? again->params[k - 1] : b_.parameter(l.name + ".core" + std::to_string(k), l.name, t.shape);
        if (!again) out.params.push_back(c);
        p.bind("G" + std::to_string(k), c);
        p.bind("dG" + std::to_string(k), b_.grad(c));
      }
    } else {
      // N × M (dense_forward)
      const int w = again ? again->params[0] : b_.parameter(l.name + ".weight", l.name, {l.out_dim, l.in_dim});
      if (!again) out.params.push_back(w);
      p.bind("W", w);
      p.bind("dW", b_.grad(w));
    }
    out.y = b_.buffer(l.name + tag + ".Y", l.name, {tokens, l.out_dim}, y_memory);
    p.bind("X", x);
    p.bind("Y", out.y);
    p.emit(FlowStage::kForward);
    if (l.bias) {
      if (!again) {
        out.bias = b_.parameter(l.name + ".bias", l.name, {l.out_dim});
        out.params.push_back(out.bias);
      }
      b_.task(l.name + tag + ".fwd.bias_add", TaskOp::kAdd, Stage::kForward, l.name, l.encoder,
              "bias.add", rows_cols(tokens, l.out_dim), {out.bias, out.y}, {out.y});
    }
    return out;
  }

  /// Grad-input and grad-weights steps and the bias gradient. With `accumulate_dx` < 0
  /// dX is a new buffer "<layer>.dX"; otherwise the step that produces dX adds it into
  /// buffer `accumulate_dx` (reads and writes it), as the HLS code does with the
  /// contraction's accumulate flag (linear_backward(..., acc = true) in
  /// hls/kernels/model_step.cc) instead of a separate add. Returns the dX buffer.
  /// `dx_memory`: where the HLS step puts a new dX (model_step.cc: dA, dctx or dF).
  int linear_backward(Linear& lin, int dy, int accumulate_dx = -1, int dx_memory = 0) {
    const auto& l = *lin.spec;
    BoundPlan& p = *lin.plan;
    const int dx = accumulate_dx >= 0 ? accumulate_dx
                                      : b_.buffer(l.name + ".dX", l.name, {lin.tokens, l.in_dim}, dx_memory);
    if (accumulate_dx >= 0) {
      p.accumulate("dX");
      // An accumulating dX through a partial and an add (hls/kernels/model_step.cc
      // linear_backward): an encoder layer's in act (words dead then), the intent head's in
      // chain0 (Layout::part).
      if (input_grad_by_add(l, o_)) {
        p.accumulate_by_add(l.format == WeightFormat::kTT ? "btt.grad_xl" : "dense.grad_input", "dX",
                            l.encoder >= 0 ? ttsim_spec::kActMem : ttsim_spec::kChain0Mem);
      }
    }
    p.bind("dY", dy);
    p.bind("dX", dx);
    p.emit(FlowStage::kGradInput, {}, true);
    if (l.bias) {
      b_.task(l.name + ".bwd.bias_grad", TaskOp::kAdd, Stage::kBackward, l.name, l.encoder,
              "bias.grad", rows_cols(lin.tokens, l.out_dim), {dy}, {b_.grad(lin.bias)});
    }
    // The layer's update group, fused: its gradients are complete and its backward (the
    // last reader of its old values) has run.
    b_.sgd_group(l.name, lin.params);
    return dx;
  }

  /// LayerNorm of `in` into a new "<layer>.out" and "<layer>.stats". With `again` (an
  /// encoder's recomputation) on `again`'s gain and bias, tagged ".re", and the output into
  /// buffer `out` when `out` >= 0 (the kept h2 the HLS step writes again).
  LayerNormBufs layernorm_forward(const std::string& layer, int encoder, int in, const LayerNormBufs* again = nullptr,
                                  int out = -1) {
    const std::string tag = again ? ".re" : "";
    LayerNormBufs n = again ? *again : LayerNormBufs{};
    n.layer = layer;
    n.in = in;
    if (!again) {
      n.gain = b_.parameter(layer + ".gain", layer, {m_.d_model});
      n.bias = b_.parameter(layer + ".bias", layer, {m_.d_model});
    }
    n.out = out >= 0 ? out : b_.buffer(layer + tag + ".out", layer, {K_, m_.d_model}, ttsim_spec::kActMem);
    // What the backward pass needs, as the HLS step saves it in saved1_mem: the normalized
    // rows x^ (K x D) and the reciprocal standard deviation of each row (K).
    n.stats = b_.buffer(layer + tag + ".stats", layer, {K_, m_.d_model + 1}, ttsim_spec::kSaved1Mem);
    b_.task(layer + tag + ".fwd", TaskOp::kLayerNorm, Stage::kForward, layer, encoder, "",
            rows_cols(K_, m_.d_model), {in, n.gain, n.bias}, {n.out, n.stats});
    return n;
  }

  /// LayerNorm backward: dIn and the gain/bias gradients; returns "<layer>.dIn".
  int layernorm_backward(const LayerNormBufs& n, int encoder, int dout, bool update = true) {
    // dy and dx alternate between bwd_a_mem and bwd_b_mem (model_step.cc dA / dB).
    const int din = b_.buffer(n.layer + ".dIn", n.layer, {K_, m_.d_model},
                              b_.buf(dout).memory == ttsim_spec::kBwdAMem ? ttsim_spec::kBwdBMem
                                                                          : ttsim_spec::kBwdAMem);
    b_.task(n.layer + ".bwd", TaskOp::kLayerNormGrad, Stage::kBackward, n.layer, encoder, "",
            rows_cols(K_, m_.d_model), {dout, n.stats, n.gain},
            {din, b_.grad(n.gain), b_.grad(n.bias)});
    // An encoder LayerNorm is its own update group; the embedding's joins the embedding's.
    if (update) b_.sgd_group(n.layer, {n.gain, n.bias});
    return din;
  }

  /// The residual sum a + b, accumulated in place into the layer output b (out_mem,
  /// model_step.cc); returns b, which then holds the sum.
  int residual(const std::string& layer, int encoder, int a, int b, const std::string& tag = "") {
    b_.task(layer + tag + ".fwd", TaskOp::kAdd, Stage::kForward, layer, encoder, "residual.add",
            rows_cols(K_, m_.d_model), {a, b}, {b});
    return b;
  }

  int embedding_forward() {
    const auto& emb = m_.token_embedding;
    const I D = m_.d_model;
    position_ = b_.parameter("embedding.position", "embedding", {m_.seq_len, D});
    int sum = -1;
    if (emb.format == WeightFormat::kTTM && emb.ttm.cores() >= 2) {
      ttm_ = std::make_shared<BoundPlan>(b_, plan_ttm_lookup(emb.ttm, K_, o_.by_add), "embedding", -1);
      for (std::size_t k = 1; k <= emb.ttm.cores(); ++k) {
        const auto name = "G" + std::to_string(k);
        const int c = b_.parameter("embedding.core" + std::to_string(k), "embedding",
                                   ttm_->plan().tensor(name).shape);
        token_params_.push_back(c);
        ttm_->bind(name, c);
        ttm_->bind("dG" + std::to_string(k), b_.grad(c));
      }
      const int tok = b_.buffer("embedding.tok", "embedding", {K_, D}, ttsim_spec::kOutMem);
      ttm_->bind("Y", tok);
      ttm_->emit(FlowStage::kForward, {ids_});
      // The position embedding accumulates into E in place (model_step.cc).
      b_.task("embedding.fwd.position_add", TaskOp::kAdd, Stage::kForward, "embedding", -1,
              "embedding.add", rows_cols(K_, D), {position_, tok}, {tok});
      sum = tok;
    } else {
      // Dense table (or a one-core TTM, which is the table itself): gather K rows and add
      // the position embedding in one element-wise pass.
      std::vector<I> shape{m_.vocab, D};
      if (emb.format == WeightFormat::kTTM) shape = {1, m_.vocab, D, 1};
      table_ = b_.parameter(emb.format == WeightFormat::kTTM ? "embedding.core1" : "embedding.table",
                            "embedding", shape);
      token_params_.push_back(table_);
      sum = b_.buffer("embedding.sum", "embedding", {K_, D}, ttsim_spec::kActMem);
      b_.task("embedding.fwd.lookup_add", TaskOp::kAdd, Stage::kForward, "embedding", -1,
              "embedding.lookup_add", rows_cols(K_, D), {ids_, table_, position_}, {sum});
    }
    emb_ln_ = layernorm_forward("embedding.ln", -1, sum);
    return emb_ln_.out;
  }

  void embedding_backward(int dh) {
    const I D = m_.d_model;
    const int dsum = layernorm_backward(emb_ln_, -1, dh, false);
    b_.task("embedding.bwd.position_grad", TaskOp::kAdd, Stage::kBackward, "embedding", -1,
            "embedding.grad", rows_cols(K_, D), {dsum}, {b_.grad(position_)});
    // The embedding's update groups (make_layout): the position table and the LayerNorm's
    // gain and bias once the position gradient is complete, then the token cores (or table).
    b_.sgd_group("embedding.position_ln", {position_, emb_ln_.gain, emb_ln_.bias});
    if (ttm_) {
      ttm_->bind("dY", dsum);
      ttm_->emit(FlowStage::kGradWeights, {ids_});
    } else {
      b_.task("embedding.bwd.scatter_grad", TaskOp::kAdd, Stage::kBackward, "embedding", -1,
              "embedding.grad", rows_cols(K_, D), {dsum, ids_}, {b_.grad(table_)});
    }
    b_.sgd_group("embedding.tokens", token_params_);
  }

  /// Encoder e's forward from `h_in`; its output in *h_out. With `again` (GraphOptions::
  /// recompute_encoders) the encoder's forward runs once more before its backward, as the
  /// HLS step's second encoder_forward call: on `again`'s parameters, from its kept input,
  /// its tasks "<layer>.re.<step>" in the backward stage and new buffers "<layer>.re.<tensor>"
  /// — except its output, which the HLS step writes again in its kept slot (the next
  /// encoder's input; the same values). Returns the encoder with the buffers its backward
  /// reads.
  Encoder encoder_forward(int e, int h_in, int* h_out, const Encoder* again = nullptr) {
    const std::string tag = again ? ".re" : "";
    b_.recomputing(again != nullptr);
    Encoder enc = again ? *again : Encoder{};
    enc.e = e;
    enc.h_in = h_in;
    const std::string p = "enc" + std::to_string(e) + ".";
    // The forward pass's layer of `again` (its parameters), or none.
    auto prev = [again](Linear Encoder::*layer) { return again ? &(again->*layer) : nullptr; };
    enc.q = linear_forward(linear(p + "q"), h_in, K_, ttsim_spec::kOutMem, prev(&Encoder::q));
    enc.k = linear_forward(linear(p + "k"), h_in, K_, ttsim_spec::kActMem, prev(&Encoder::k));
    enc.v = linear_forward(linear(p + "v"), h_in, K_, ttsim_spec::kOutMem, prev(&Encoder::v));
    const std::string attn = p + "attn";
    enc.attn = std::make_shared<BoundPlan>(
        b_, plan_attention(sequences_, L_, m_.heads, m_.head_dim()), attn, e, tag);
    enc.attn->bind("Q", enc.q.y);
    enc.attn->bind("K", enc.k.y);
    enc.attn->bind("V", enc.v.y);
    const int c = b_.buffer(attn + tag + ".C", attn, {K_, m_.d_model}, ttsim_spec::kActMem);
    enc.attn->bind("C", c);
    enc.attn->emit(FlowStage::kForward);
    enc.o = linear_forward(linear(p + "o"), c, K_, ttsim_spec::kOutMem, prev(&Encoder::o));
    const int res1 = residual(p + "res1", e, h_in, enc.o.y, tag);
    enc.ln1 = layernorm_forward(p + "ln1", e, res1, again ? &again->ln1 : nullptr);
    enc.ffn_in = linear_forward(linear(p + "ffn_in"), enc.ln1.out, K_, ttsim_spec::kOutMem, prev(&Encoder::ffn_in));
    const int g = b_.buffer(p + "gelu" + tag + ".out", p + "gelu", {K_, m_.ffn_dim}, ttsim_spec::kActMem);
    b_.task(p + "gelu" + tag + ".fwd", TaskOp::kGelu, Stage::kForward, p + "gelu", e, "",
            rows_cols(K_, m_.ffn_dim), {enc.ffn_in.y}, {g});
    enc.ffn_out = linear_forward(linear(p + "ffn_out"), g, K_, ttsim_spec::kOutMem, prev(&Encoder::ffn_out));
    const int res2 = residual(p + "res2", e, enc.ln1.out, enc.ffn_out.y, tag);
    enc.ln2 = layernorm_forward(p + "ln2", e, res2, again ? &again->ln2 : nullptr, again ? again->ln2.out : -1);
    *h_out = enc.ln2.out;
    b_.recomputing(false);
    return enc;
  }

  /// Backward through one encoder given the gradient of its output; returns the
  /// gradient of its input.
  int encoder_backward(Encoder& enc, int dh) {
    const int e = enc.e;
    const std::string p = "enc" + std::to_string(e) + ".";
    const I D = m_.d_model;
    const int dres2 = layernorm_backward(enc.ln2, e, dh);
    const int dg = linear_backward(enc.ffn_out, dres2, -1, ttsim_spec::kBwdCMem);
    // GELU's gradient in place on dF (model_step.cc).
    const int du = b_.buffer(p + "gelu.dIn", p + "gelu", {K_, m_.ffn_dim}, ttsim_spec::kBwdCMem);
    b_.task(p + "gelu.bwd", TaskOp::kGeluGrad, Stage::kBackward, p + "gelu", e, "",
            rows_cols(K_, m_.ffn_dim), {dg, enc.ffn_in.y}, {du});
    // Residual 2: ffn_in's dX adds into dres2 (the gradient of ln1.out through the skip).
    const int dln1 = linear_backward(enc.ffn_in, du, dres2);
    const int dres1 = layernorm_backward(enc.ln1, e, dln1);
    const int dc = linear_backward(enc.o, dres1, -1, ttsim_spec::kBwdBMem);
    const std::string attn = p + "attn";
    enc.attn->bind("dC", dc);
    const int dq = b_.buffer(attn + ".dQ", attn, {K_, D}, ttsim_spec::kBwdCMem);
    const int dk = b_.buffer(attn + ".dK", attn, {K_, D}, ttsim_spec::kBwdBMem);
    const int dv = b_.buffer(attn + ".dV", attn, {K_, D}, ttsim_spec::kBwdCMem);
    enc.attn->bind("dQ", dq);
    enc.attn->bind("dK", dk);
    enc.attn->bind("dV", dv);
    enc.attn->emit(FlowStage::kGradInput);
    // Residual 1 and the three projections: the dX products of Q, K and V add in turn
    // into dres1 (the gradient of the encoder input through the skip).
    linear_backward(enc.q, dq, dres1);
    linear_backward(enc.k, dk, dres1);
    linear_backward(enc.v, dv, dres1);
    return dres1;
  }

  /// Softmax cross-entropy over `classes` logits for `rows` rows; returns dlogits.
  int loss(const std::string& which, int logits, int labels, I rows, I classes) {
    const std::string layer = "loss." + which;
    const int dlogits = b_.buffer(layer + ".dlogits", layer, {rows, classes}, ttsim_spec::kBwdBMem);
    // The kernel returns the loss from its row statistics (stat, in chain1_mem).
    const int value = b_.buffer(layer + ".value", layer, {1}, ttsim_spec::kChain1Mem);
    b_.task(layer, TaskOp::kLoss, Stage::kBackward, layer, -1, "", rows_cols(rows, classes),
            {logits, labels}, {dlogits, value});
    return dlogits;
  }

  const ModelSpec& m_;
  const GraphOptions& o_;
  I K_ = 0, sequences_ = 1, L_ = 0;
  Builder b_;
  int ids_ = -1, intent_labels_ = -1, slot_labels_ = -1, position_ = -1, table_ = -1;
  std::shared_ptr<BoundPlan> ttm_;
  std::vector<int> token_params_;  ///< the token embedding's cores (or table)
  LayerNormBufs emb_ln_;
};

}  // namespace

bool input_grad_by_add(const LinearLayerSpec& l, const GraphOptions& options) {
  if (!options.by_add.applies()) return false;
  if (l.format != WeightFormat::kTT) return true;  // dense: dY·W
  if (l.tt.in_factors.empty()) return false;
  auto it = options.flow_by_kind.find(l.kind);
  return it == options.flow_by_kind.end() || it->second == Flow::kBTT;  // BTT: dZ·L_dᵀ
}

void accumulate_by_add_choices(const ModelSpec& model, const GraphOptions& options, std::vector<char>& out) {
  out.clear();
  for (const auto& l : model.linears) out.push_back(input_grad_by_add(l, options) ? 1 : 0);
  const EmbeddingSpec& emb = model.token_embedding;
  if (emb.format != WeightFormat::kTTM) return;
  for (std::size_t k = 2; k <= emb.ttm.cores(); ++k) out.push_back(options.by_add.applies() ? 1 : 0);
}

TaskGraph build_training_graph(const ModelSpec& model, const GraphOptions& options) {
  if (options.tokens < 0) {
    throw InputError("training graph: expected tokens >= 0 (0 = batch x seq_len), found " +
                     std::to_string(options.tokens));
  }
  return TrainingGraph(model, options).build();
}

}  // namespace ttsim
