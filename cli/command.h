#pragma once
// Subcommand registry of the `ttsim` binary. Each subcommand lives in its own
// cli/*_cmd.cc file and registers itself with a static CommandRegistration; main()
// dispatches on the first argument.

#include <functional>
#include <string>
#include <vector>

namespace ttsim::cli {

/// One subcommand. `run` receives the arguments after the subcommand name and
/// returns the process exit code: 0 ok, 2 bad input, 1 internal error. It may throw
/// InputError (mapped to 2) or any other exception (mapped to 1).
struct Command {
  std::string name;
  std::string summary;  ///< one line for `ttsim --help`
  std::function<int(const std::vector<std::string>& args)> run;
};

/// All registered commands, sorted by name.
std::vector<Command>& registry();

/// Registers a command at static-initialization time.
struct CommandRegistration {
  explicit CommandRegistration(Command c);
};

/// Program version string, e.g. "0.1.0".
const char* version();

}  // namespace ttsim::cli
