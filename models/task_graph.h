#pragma once
// The training-step task graph for one sample: every task of the forward pass, the
// full backward pass and the SGD update, the buffers they read and write, and their
// dependencies. This is what the simulator executes and what the memory planner maps.

#include <cstdint>
#include <string>
#include <vector>

namespace ttsim {

/// What a buffer holds, for occupancy accounting.
enum class BufferClass {
  kParameter,   ///< TT/TTM cores, dense weights, biases, LayerNorm gain/bias
  kGradient,    ///< gradient of a parameter (same words as the parameter)
  kActivation,  ///< forward value saved for the backward pass
  kTemporary,   ///< lives only between its producer and its last consumer
};
const char* to_string(BufferClass c);

/// One on-chip array of FP32 words.
struct Buffer {
  int id = -1;
  std::string name;   ///< unique, e.g. "enc0.q.core2", "enc0.q.L", "enc0.attn.P"
  BufferClass cls = BufferClass::kTemporary;
  std::int64_t words = 0;             ///< FP32 words
  std::vector<std::int64_t> shape;    ///< logical shape; product == words
  std::string layer;                  ///< owning layer, e.g. "enc0.q", "enc0.attn", "embedding"
  /// Index (in TaskGraph::tasks order) of the first and last task that touch the
  /// buffer. Parameters live for the whole step regardless; a gradient from its first write
  /// to its (fused) SGD task.
  int first_task = -1;
  int last_task = -1;
  /// The memory of the HLS top that holds it (ttsim_spec::MemoryId, hls/include/kernel_spec.h:
  /// param_mem … chain1_mem, index_mem), as the arena plan of hls/kernels/model_step.h places
  /// it; 0 (kOwnMemory) when the kernel tree has no place for it (MM flow, dense tables).
  int memory = 0;
};

/// Training stage a task belongs to.
enum class Stage { kForward, kBackward, kUpdate };
const char* to_string(Stage s);

/// The hardware unit class that executes a task.
enum class UnitKind {
  kContraction,  ///< multiply-accumulate array (TT merges, X·L, attention matmuls, TTM lookup)
  kSoftmax,
  kLayerNorm,
  kGelu,
  kElementwise,  ///< residual add, bias add, embedding add, scaling
  kLoss,         ///< softmax cross-entropy and its gradient
  kUpdate,       ///< SGD update of a parameter in place
};
const char* to_string(UnitKind u);

/// The operation of a task; determines its loop nest (hw/loop_nest.h).
enum class TaskOp {
  kContraction,    ///< batch × (rows × inner) · (inner × cols) multiply-accumulate
  kSoftmax,        ///< row softmax over `cols`
  kSoftmaxGrad,
  kLayerNorm,
  kLayerNormGrad,
  kGelu,
  kGeluGrad,
  kAdd,            ///< element-wise sum of two operands (residual, bias, embedding)
  kLoss,           ///< softmax cross-entropy forward and gradient w.r.t. the logits
  kSgdUpdate,      ///< w -= lr · g
};
const char* to_string(TaskOp op);
/// The TaskOp whose to_string is `name`; false (and *op untouched) for any other name.
bool task_op_named(const char* name, TaskOp* op);
/// Number of TaskOp values.
inline constexpr int kTaskOpCount = static_cast<int>(TaskOp::kSgdUpdate) + 1;

/// The unit class that executes `op` (the one table of which unit runs which op).
UnitKind unit_of(TaskOp op);
/// Every op the unit class `k` executes (the inverse of unit_of), in TaskOp order.
const std::vector<TaskOp>& ops_of_unit(UnitKind k);

/// Shape of the work of a task.
/// Contraction: `batch` independent products of (rows × inner) · (inner × cols),
///   MACs = batch · rows · inner · cols.
/// Row-wise and element-wise ops: `batch` · `rows` rows of `cols` elements (inner = 1).
struct TaskShape {
  std::int64_t batch = 1;
  std::int64_t rows = 1;
  std::int64_t inner = 1;
  std::int64_t cols = 1;
  /// Which loop of the kernel runs (hls/include/kernel_spec.h "Variants"): for a
  /// contraction its form (column / dot / scalar, from the operand strides) and whether the
  /// batch is reduced; for an add the plain, accumulate or column-sum loop; 0 otherwise.
  int variant = 0;
  /// Which kernel arguments share one physical memory (and so its ports):
  /// ttsim_spec::memory_of(memories, slot) for each argument slot of the kernel
  /// (ttsim_spec::kernel_array_slot); 0 = its own memory. 0 for all: every argument apart.
  std::uint64_t memories = 0;
  std::int64_t elements() const { return batch * rows * cols; }
  std::int64_t macs() const { return batch * rows * inner * cols; }
};

/// One task of the training step.
struct Task {
  int id = -1;
  std::string name;   ///< unique, e.g. "enc0.q.fwd.merge_left.1"
  TaskOp op = TaskOp::kContraction;
  UnitKind unit = UnitKind::kContraction;
  Stage stage = Stage::kForward;
  std::string layer;  ///< "embedding", "enc0.q", "enc0.attn", "enc0.ln1", "intent_head", "loss", ...
  int encoder = -1;   ///< encoder index, -1 outside the encoders
  /// Part of an encoder's recomputation (GraphOptions::recompute_encoders): a forward
  /// kernel call run again in the backward stage ("<layer>.re.<step>").
  bool recompute = false;
  /// Role of the task within its flow, used by scheduling policies:
  /// "btt.merge_left", "btt.merge_right", "btt.xl", "btt.zr", "tt.step", "mm.rebuild",
  /// "mm.product", "dense.product", "attn.qk", "attn.pv", "ttm.lookup", "" for others.
  /// The backward roles of each flow ("btt.grad_zr", "btt.grad_core_left", "tt.grad_input",
  /// "attn.grad_q", "ttm.grad_core", ...) are listed with the step lists in models/flows.h;
  /// element-wise tasks of the training graph use "bias.add", "bias.grad", "residual.add",
  /// "embedding.add" (the last three accumulate in place into the layer output),
  /// "embedding.lookup_add" (dense table), "embedding.grad", and the BTT flow's transposed copies
  /// "btt.transpose" (L_d → L_dᵀ, dL_dᵀ → dL_d) (gradients that meet are summed by the contraction
  /// that produces the second one, with its accumulate flag, not by an add task).
  std::string role;
  /// The call site of the emitted top (hls/kernels/model_step.cc with its glue inlined) this
  /// kernel call is made from, numbered from 0 in order of first use: tasks with one site are
  /// the iterations of one call in a loop of the glue — the top's encoder loop (a task's
  /// encoder index aside, its name is its site) and the loops whose flow steps name a site
  /// (FlowStep::site). -1: not known (a graph built by hand), its own site. The sites of a
  /// module are the inputs of its argument multiplexers (machine::KernelInstance::call_sites).
  int site = -1;
  TaskShape shape;
  std::int64_t macs = 0;      ///< multiply-accumulates (contractions), else 0
  std::int64_t elements = 0;  ///< elements processed (non-contraction tasks), else 0
  std::vector<int> reads;     ///< buffer ids
  std::vector<int> writes;    ///< buffer ids
  std::vector<int> deps;      ///< ids of tasks that must finish first (all < id)
};

/// The kernel variant of a task of `op` whose plan gives `variant`, reading buffers `reads`
/// and writing `writes`: a contraction that reads a buffer it writes accumulates into it (the
/// kernel's accumulate flag: C_old read at the first reduction step), so its column form is
/// the column_acc loop (ttsim_spec::accumulating_variant); every other variant as given.
int task_variant(TaskOp op, int variant, const std::vector<int>& reads, const std::vector<int>& writes);

/// A complete training step. Tasks are stored in a topological order (every dep of
/// task i has an id < i), so simulated time and the task index are both valid orders.
struct TaskGraph {
  std::vector<Task> tasks;
  std::vector<Buffer> buffers;
};

}  // namespace ttsim
