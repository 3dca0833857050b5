// Entry point of the ttsim command-line tool.

#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/errors.h"
#include "core/json_view.h"

namespace ttsim::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

CommandRegistration::CommandRegistration(Command c) {
  auto& r = registry();
  r.push_back(std::move(c));
  std::sort(r.begin(), r.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
}

const char* version() { return "0.1.0"; }

namespace {

void print_usage(std::ostream& out) {
  out << "ttsim " << version()
      << " - simulator and design-space explorer for FPGA training of tensor-compressed "
         "transformers\n\n"
         "usage: ttsim <command> [options]\n"
         "       ttsim <command> --help\n"
         "       ttsim --version\n\n"
         "commands:\n";
  for (const auto& c : registry()) {
    out << "  " << c.name << std::string(c.name.size() < 16 ? 16 - c.name.size() : 1, ' ')
        << c.summary << "\n";
  }
  out << "\nexit codes: 0 ok, 2 bad input (config, flags, files), 1 internal error, a failed write of stdout or a full disk,\n"
         "            130 interrupted (explore keeps what is done; --resume continues)\n";
}

/// Throws InputError naming the argument unless every argument is valid UTF-8: paths and
/// values given on the command line are recorded in the JSON files the commands write
/// (state.json, results.json, reports), which hold UTF-8 text only. Valid means the JSON
/// library can write it.
void require_utf8_arguments(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    try {
      (void)ttsim::Json(args[i]).dump();
    } catch (const ttsim::Json::exception&) {
      std::string shown;
      for (unsigned char c : args[i]) {
        shown += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
      }
      throw ttsim::InputError(fmt::format(
          "argument {} (\"{}\"): expected UTF-8 text (paths and values are recorded in the JSON "
          "outputs), found bytes that are not UTF-8",
          i + 1, shown));
    }
  }
}

}  // namespace
}  // namespace ttsim::cli

int main(int argc, char** argv) {
  using namespace ttsim::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "ttsim " << version() << "\n";
    return 0;
  }
  for (const auto& c : registry()) {
    if (c.name != args[0]) continue;
    try {
      const std::vector<std::string> rest(args.begin() + 1, args.end());
      require_utf8_arguments(rest);
      const int rc = c.run(rest);
      // A report that did not reach stdout (a full disk, a closed pipe) is not a success.
      std::cout.flush();
      if (!std::cout) {
        std::cerr << "ttsim " << c.name << ": error: writing the standard output failed\n";
        return rc == 0 ? 1 : rc;
      }
      return rc;
    } catch (const ttsim::InputError& e) {
      std::cerr << "ttsim " << c.name << ": error: " << e.what() << "\n";
      return 2;
    } catch (const ttsim::SystemError& e) {
      // A full disk, an I/O error, no descriptor or memory left: the machine, not the input.
      std::cerr << "ttsim " << c.name << ": error: " << e.what() << "\n";
      return 1;
    } catch (const std::filesystem::filesystem_error& e) {
      // A path the system refuses (too long, a loop of links, no permission to look): the
      // user's input, named by the message (2). A full disk, an I/O error or exhausted
      // descriptors or memory are the machine's state, not the input (1).
      std::cerr << "ttsim " << c.name << ": error: " << e.what() << "\n";
      return ttsim::is_system_errno(e.code().value()) ? 1 : 2;
    } catch (const std::exception& e) {
      std::cerr << "ttsim " << c.name << ": internal error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "ttsim: unknown command \"" << args[0] << "\"\n\n";
  print_usage(std::cerr);
  return 2;
}
