#include "cli/options.h"

#include <algorithm>
#include <cctype>
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
  // An option given an empty text ("--json ''") would read as not given: refused, except
  // where the option takes no value by design (an implicit value, as memplan's --planner).
  for (const auto& [name, value] : vm) {
    const auto* text = boost::any_cast<std::string>(&value.value());
    const auto* texts = boost::any_cast<std::vector<std::string>>(&value.value());
    const bool empty = (text && text->empty()) || (texts && std::any_of(texts->begin(), texts->end(),
                                                                        [](const std::string& t) { return t.empty(); }));
    if (!empty || value.defaulted()) continue;
    const po::option_description* d = options.find_nothrow(name, false);
    const bool implicit = d && d->semantic()->min_tokens() == 0;
    if (implicit) continue;
    // A positional argument is named as the usage line names it (SWEEP, CONFIG), an option
    // as typed (--json).
    // A description names its positions in order and repeats the last name for an unlimited
    // one, so the first few positions hold every name it has (the commands have at most two).
    constexpr unsigned kNamedPositions = 8;
    bool is_positional = false;
    const unsigned positions = positional.max_total_count();
    for (unsigned i = 0; i < positions && i < kNamedPositions && !is_positional; ++i) {
      is_positional = positional.name_for_position(i) == name;
    }
    std::string label = "--" + name;
    if (is_positional) {
      label = name;
      for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    throw InputError(label + ": expected a value, found an empty text (see ttsim " + command + " --help)");
  }
  return true;
}

}  // namespace ttsim::cli
