// `ttsim merge --out DIR SHARD_DIR...`: join the state of `explore --shard i/N` runs and
// finish them (SystemC stage, Pareto front, choice, outputs) exactly as an unsharded run.

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "core/errors.h"
#include "dse/emit/emit.h"
#include "dse/run/explore.h"
#include "dse/run_setup.h"

namespace ttsim::cli {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_merge_sigint(int) { g_interrupted = true; }

int run_merge_cmd(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::string out, hls_root;
  std::vector<std::string> shards;
  int threads = 0;
  opts.add_options()("out", po::value(&out)->required(), "output folder of the merged run")(
      "shards", po::value(&shards)->multitoken()->required(), "the shard output folders")(
      "threads", po::value(&threads), "worker threads for the SystemC stage, 1..256 (default 0: all cores)")(
      "hls-root", po::value(&hls_root),
      "folder holding the hls/ kernel tree emitted into hls_build/ (default: the working "
      "directory, else the checkout the ttsim binary was built from)");
  po::positional_options_description pos;
  pos.add("shards", -1);
  po::variables_map vm;
  if (!parse_options("merge", "--out DIR SHARD_DIR...", opts, pos, args, vm)) return 0;
  const auto start = std::chrono::steady_clock::now();
  const int n_threads = dse::checked_threads(threads);  // before any work
  hls_root = dse::find_hls_root(hls_root);  // before the SystemC stage, not after it
  const dse::RunState first = dse::load_run_settings(shards.front());
  // The shards' calibration (explore --calibration) is applied again to the SystemC stage.
  const std::string calibration =
      first.calibration.is_null() ? std::string() : first.calibration.value("file", std::string());
  if (!std::filesystem::exists(first.sweep_file)) {
    throw InputError(fmt::format(
        "{}/state.json: /sweep_file: expected the sweep file the shards ran, found \"{}\", which is not at {} "
        "(a relative path is read from the working folder; run merge from the folder the shards ran in)",
        shards.front(), first.sweep_file, std::filesystem::absolute(first.sweep_file).string()));
  }
  auto setup = dse::make_run_setup(first.sweep_file, calibration);
  dse::ExploreOptions o;
  o.out_dir = out;
  o.control.threads = n_threads;
  o.extra_outputs = dse::standard_extra_outputs(*setup, hls_root);
  o.control.cancel = &g_interrupted;
  std::signal(SIGINT, on_merge_sigint);
  const auto r = dse::run_merge(*setup->eval, shards, o);
  std::signal(SIGINT, SIG_DFL);
  if (r.outcome == dse::ExploreOutcome::kInterrupted && r.evaluated == 0 && !std::filesystem::exists(out + "/state.json")) {
    std::cerr << fmt::format("interrupted while merging the shards' logs: nothing kept in {}; run the same "
                             "merge again\n",
                             out);
    return 130;
  }
  if (g_interrupted) {
    std::cerr << fmt::format("interrupted: the merged run in {} is not finished; finish it with `ttsim explore "
                             "{} --out {} --resume`\n",
                             out, first.sweep_file, out);
    return 130;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format("merged {} shards: {} points, {} feasible{}, Pareto front {}, {:.1f} s; results in {}\n",
                           shards.size(), r.evaluated, r.final.feasible,
                           dse::not_evaluated_clause(r.final),
                           r.final.front.size(), secs, out);
  return 0;
}

const CommandRegistration reg({"merge", "join the outputs of `explore --shard i/N` runs", run_merge_cmd});

}  // namespace
}  // namespace ttsim::cli
