#include "cli/options.h"

#include <iostream>

#include "core/errors.h"

namespace ttsim::cli {

bool parse_options(const std::string& command, const std::string& usage_line,
                   po::options_description& options,
                   const po::positional_options_description& positional,
                   const std::vector<std::string>& args, po::variables_map& vm) {
  options.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: ttsim " << command << " " << usage_line << "\n\n" << options << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see ttsim " + command + " --help)");
  }
  return true;
}

}  // namespace ttsim::cli
