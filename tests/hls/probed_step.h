#pragma once
// One training step of the HLS kernels (hls/host/hls_model.h train_step:
// hls/kernels/model_step.cc model_train_step with its fused SGD updates, compiled with the lane counts of the
// checked-in hls/include/design_config.h) run in C simulation under the access probe, and
// the loop sequence a task graph's tasks run in a given order. Tests compare the two to
// show that the machine's task order is the kernel calls' order.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hls/include/access_probe.h"
#include "models/model_spec.h"
#include "models/task_graph.h"

namespace ttsim::testing {

/// What the probe measured over one step.
struct ProbedStep {
  std::map<std::string, ttsim_hls::MeasuredLoop> loops;  ///< per loop label
  std::vector<ttsim_hls::LoopInvocation> sequence;        ///< every loop invocation, in order
  /// The model's layout's lane granules (hls/kernels/model_step.h layernorm_lane_granule,
  /// gelu_lane_granule, softmax_lane_granule, sgd_lane_granule, loss_lane_granule): what the
  /// machine takes the LayerNorm, GELU, softmax, SGD and loss modules' lane starts to be
  /// multiples of.
  int layernorm_granule = 0, gelu_granule = 0, softmax_granule = 0, sgd_granule = 0, loss_granule = 0;
};

/// Runs one train step (K tokens of a fixed synthetic sample; SGD fused into the backward
/// pass) of `spec` on the HLS model, its BTT layers recomputing their merges when
/// `recompute_merges` and its encoders recomputed when `recompute_encoders`, every TT layer of kind k in the BTT flow when btt_by_kind[k]
/// (kinds "attention", "ffn_in", "ffn_out"; a missing kind: BTT). Throws what HlsModel throws
/// (InputError for a model the kernel tree cannot hold). `by_add`: the machine (contraction
/// lanes, arena banks) whose accumulate_by_add choices the step makes (HlsModelOptions); both
/// 0: the compiled design_config.h's.
ProbedStep run_probed_step(const ModelSpec& spec, const std::map<std::string, bool>& btt_by_kind,
                           std::int64_t K, bool recompute_merges = false, bool recompute_encoders = false,
                           const std::array<int, 2>& by_add = {0, 0});

/// The UNROLL factor the compiled design_config.h gives the kernel module that runs `op`
/// (hls/kernels/modules.cc).
int compiled_lanes(TaskOp op);

/// "<loop> x<trip> [v<variant> <batch>x<rows>x<inner>x<cols>] (<task>)" for every loop
/// (hw/loop_nest.h kernel_loops at compiled_lanes) of every task of `g`, tasks in `order`
/// (task ids); the shape for a contraction (the kernel records it, probe_call_shape).
std::vector<std::string> graph_loop_sequence(const TaskGraph& g, const std::vector<int>& order);

/// Index of the first entry where `graph` (graph_loop_sequence) and `step` (the probe's
/// sequence) differ — the loop label or the trip count — or the shorter length when one is
/// a prefix of the other; `around` (when not null) receives the next few entries of both.
std::size_t first_difference(const std::vector<std::string>& graph,
                             const std::vector<ttsim_hls::LoopInvocation>& step, std::string* around);

}  // namespace ttsim::testing
