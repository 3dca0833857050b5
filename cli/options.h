#pragma once
// Shared Boost.Program_options plumbing for subcommands: parse, --help, and
// translation of option errors into InputError (exit code 2).

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "core/number_text.h"

namespace ttsim::cli {

namespace po = boost::program_options;

/// Parses `args` against `options` (+ positional `positional`) into `vm`.
/// Adds --help to `options`. Returns false when --help was given (usage already
/// printed to stdout as "usage: ttsim <command> <usage_line>" and the options).
/// Throws InputError for unknown options, missing values or bad values.
bool parse_options(const std::string& command, const std::string& usage_line,
                   po::options_description& options,
                   const po::positional_options_description& positional,
                   const std::vector<std::string>& args, po::variables_map& vm);

/// `v` with thousands separators: 2162297 → "2,162,297" (core/number_text.h).
using ttsim::grouped;

}  // namespace ttsim::cli
