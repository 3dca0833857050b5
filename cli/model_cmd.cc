// `ttsim model CONFIG [--json OUT] [--tokens K,K,...] [--flow F]`: the workload inventory
// of a model config (models/workload_report.h) as tables, and optionally as JSON.

#include <iostream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "models/workload_report.h"

namespace ttsim::cli {
namespace {

/// 1253376 -> "1,253,376".
std::string group(std::int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::vector<std::int64_t> parse_tokens(const std::string& s) {
  std::vector<std::int64_t> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || v < 1) {
      throw InputError("--tokens: expected a comma-separated list of integers >= 1, found \"" +
                       s + "\"");
    }
    out.push_back(v);
  }
  if (out.empty()) throw InputError("--tokens: expected at least one token count, found \"\"");
  return out;
}

void print_parameters(const WorkloadReport& r) {
  std::cout << fmt::format("Parameters (FP32, MB = 1e6 bytes)\n");
  std::cout << fmt::format("{:<20} {:<6} {:<28} {:>12} {:>11} {:>8}\n", "layer", "format",
                           "shape", "dense", "compressed", "ratio");
  for (const auto& l : r.layers) {
    if (l.params_dense == 0) continue;
    std::cout << fmt::format("{:<20} {:<6} {:<28} {:>12} {:>11} {:>7.1f}x\n", l.name, l.format,
                             l.shape, group(l.params_dense), group(l.params_compressed),
                             double(l.params_dense) / double(l.params_compressed));
  }
  std::cout << fmt::format("{:<20} {:<6} {:<28} {:>12} {:>11} {:>7.1f}x\n", "total", "", "",
                           group(r.dense_params), group(r.compressed_params),
                           r.compression_ratio());
  std::cout << fmt::format("{:<20} {:<6} {:<28} {:>9.3f} MB {:>8.3f} MB\n\n", "bytes", "", "",
                           r.dense_bytes() / 1e6, r.compressed_bytes() / 1e6);
}

void print_costs(const WorkloadReport& r) {
  std::cout << fmt::format(
      "Contractions per training step (K = {} tokens; MACs; critical path and peak "
      "intermediate words per stage fwd/grad-in/grad-w)\n",
      r.tokens);
  std::cout << fmt::format("{:<14} {:<9} {:>12} {:>12} {:>12} {:>8}  {:>28}\n", "layer", "flow",
                           "forward", "grad-input", "grad-weights", "path", "peak words");
  for (const auto& l : r.layers) {
    for (const char* flow : {"mm", "tt", "btt", "ttm", "attention"}) {
      const auto it = l.flows.find(flow);
      if (it == l.flows.end()) continue;
      const StageCosts& c = it->second;
      std::cout << fmt::format(
          "{:<14} {:<9} {:>12} {:>12} {:>12} {:>8}  {:>28}\n", l.name, flow, group(c.forward.macs),
          group(c.grad_input.macs), group(c.grad_weights.macs),
          fmt::format("{}/{}/{}", c.forward.critical_path, c.grad_input.critical_path,
                      c.grad_weights.critical_path),
          fmt::format("{}/{}/{}", group(c.forward.peak_intermediate_words),
                      group(c.grad_input.peak_intermediate_words),
                      group(c.grad_weights.peak_intermediate_words)));
    }
  }
  std::cout << "\n";
}

void print_totals(const WorkloadReport& r) {
  std::cout << "Step totals with every TT layer on one flow (task graph built per flow)\n";
  std::cout << fmt::format("{:<5} {:>14} {:>14} {:>14} {:>15} {:>12} {:>7} {:>15}\n", "flow",
                           "forward MACs", "grad-in MACs", "grad-w MACs", "total MACs",
                           "peak words", "tasks", "critical path");
  for (const char* f : {"mm", "tt", "btt"}) {
    const auto& t = r.totals.at(f);
    std::cout << fmt::format("{:<5} {:>14} {:>14} {:>14} {:>15} {:>12} {:>7} {:>15}\n", f,
                             group(t.macs.forward.macs), group(t.macs.grad_input.macs),
                             group(t.macs.grad_weights.macs), group(t.macs.macs()),
                             group(t.peak_intermediate_words), t.graph.tasks,
                             fmt::format("{} ({} MM)", t.graph_critical_path_tasks,
                                         t.graph_critical_path_contractions));
  }
  std::cout << "critical path: tasks on the longest dependency chain of the step's task graph "
               "(contraction tasks on it)\n\n";
}

void print_graph(const WorkloadReport& r) {
  const auto& s = r.totals.at(to_string(r.graph_flow)).graph;
  std::cout << fmt::format("Task graph ({} flow): {} tasks, {} buffers, {} dependencies, {} MACs\n",
                           to_string(r.graph_flow), s.tasks, s.buffers, s.dependencies,
                           group(s.total_macs));
  std::string line = "  tasks by stage:";
  for (const auto& [k, v] : s.tasks_by_stage) line += fmt::format(" {} {}", k, v);
  std::cout << line << "\n";
  line = "  tasks by unit:";
  for (const auto& [k, v] : s.tasks_by_unit) line += fmt::format(" {} {}", k, v);
  std::cout << line << "\n";
  line = "  buffers by class (words):";
  for (const auto& [k, v] : s.buffers_by_class) {
    line += fmt::format(" {} {} ({})", k, v, group(s.words_by_class.at(k)));
  }
  std::cout << line << "\n\n";
}

void print_comparison(const WorkloadReport& r) {
  if (r.comparison_layer.empty()) {
    std::cout << "Flow comparison: the model has no TT attention layer\n";
    return;
  }
  std::cout << fmt::format("Forward pass of {} (first TT attention layer): MM vs TT vs BTT\n",
                           r.comparison_layer);
  std::cout << fmt::format("{:>5} {:>13} {:>13} {:>13} {:>11} {:>11} {:>11} {:>8} {:>9}\n", "K",
                           "MM MACs", "TT MACs", "BTT MACs", "MM words", "TT words", "BTT words",
                           "BTT/TT", "BTT/MM");
  for (const auto& p : r.comparison) {
    const auto& mm = p.forward.at("mm");
    const auto& tt = p.forward.at("tt");
    const auto& btt = p.forward.at("btt");
    std::cout << fmt::format("{:>5} {:>13} {:>13} {:>13} {:>11} {:>11} {:>11} {:>8.3f} {:>9.4f}\n",
                             p.tokens, group(mm.macs), group(tt.macs), group(btt.macs),
                             group(mm.peak_intermediate_words), group(tt.peak_intermediate_words),
                             group(btt.peak_intermediate_words),
                             double(btt.macs) / double(tt.macs),
                             double(btt.macs) / double(mm.macs));
  }
  std::cout << "words: peak intermediate FP32 words of the forward stage; BTT/TT and BTT/MM: MAC "
               "ratios\n";
}

int run_model(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string config, json_out, tokens = "32,128,512", flow = "btt";
  options.add_options()
      ("config", po::value<std::string>(&config)->required(), "model config JSON (configs/models/)")
      ("json", po::value<std::string>(&json_out), "also write the report as JSON here (atomically)")
      ("tokens", po::value<std::string>(&tokens)->default_value(tokens),
       "token counts K of the MM vs TT vs BTT comparison, comma-separated")
      ("flow", po::value<std::string>(&flow)->default_value(flow),
       "flow of the TT layers in the reported task graph: mm, tt or btt");
  po::positional_options_description positional;
  positional.add("config", 1);
  po::variables_map vm;
  if (!parse_options("model", "CONFIG [--json OUT] [--tokens K,K,...] [--flow btt]", options,
                     positional, args, vm)) {
    return 0;
  }
  const Flow graph_flow = parse_flow(flow);
  const auto compare = parse_tokens(tokens);
  refuse_clashing_paths({{"--json", json_out}}, {{"CONFIG", config}});
  check_output_writable({"--json", json_out});
  const ModelSpec model = load_model_spec(config);
  // The same 64-bit bound a model file's own step must keep (models/model_spec.h).
  for (std::int64_t k : compare) {
    if (dense_step_macs_bound(model, static_cast<long double>(k)) > kMaxStepMacs) {
      throw InputError(fmt::format(
          "--tokens: expected token counts whose training step ttsim can count in 64-bit integers (at most 2^50 "
          "dense-equivalent multiply-accumulates for {}), found {}",
          config, k));
    }
  }
  const WorkloadReport report = build_workload_report(model, graph_flow, compare);

  std::cout << fmt::format("Model {} ({}): {} encoders, d_model {}, {} heads, FFN {}, {} tokens\n\n",
                           model.name, config, model.encoders, model.d_model, model.heads,
                           model.ffn_dim, report.tokens);
  print_parameters(report);
  print_costs(report);
  print_totals(report);
  print_graph(report);
  print_comparison(report);
  if (!json_out.empty()) {
    write_file_atomic(json_out, to_json(report).dump(2) + "\n");
    std::cout << "wrote " << json_out << "\n";
  }
  return 0;
}

const CommandRegistration kRegistration{
    {"model", "workload inventory: parameters, flow MACs and intermediates, task graph",
     run_model}};

}  // namespace
}  // namespace ttsim::cli
