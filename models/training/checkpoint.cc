#include "models/training/checkpoint.h"

#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace ttsim::training {

namespace {
// Format 2: the HLS engine's dense weights are stored out × in (format 1: in × out); a
// format-1 file is refused rather than loaded with those weights transposed.
constexpr const char* kMagic = "ttsim-checkpoint 2";
}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  std::string out = std::string(kMagic) + "\n" + c.header.dump() + "\n" +
                    std::to_string(c.parameters.size()) + "\n";
  out += c.parameters;
  write_file_atomic(path, out);
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open checkpoint for reading");
  std::string magic, header, size_line;
  if (!std::getline(in, magic) || magic != kMagic) {
    throw InputError(path + ": expected a ttsim checkpoint (first line \"" + kMagic +
                     "\"), found something else");
  }
  if (!std::getline(in, header) || !std::getline(in, size_line)) {
    throw InputError(path + ": checkpoint truncated (header missing)");
  }
  Checkpoint c;
  try {
    c.header = Json::parse(header);
  } catch (const Json::parse_error& e) {
    throw InputError(path + ": checkpoint header is not valid JSON (" + e.what() + ")");
  }
  std::size_t size = 0;
  try {
    size = static_cast<std::size_t>(std::stoull(size_line));
  } catch (const std::exception&) {
    throw InputError(path + ": checkpoint blob size line is not a number: \"" + size_line + "\"");
  }
  c.parameters.resize(size);
  in.read(&c.parameters[0], static_cast<std::streamsize>(size));
  if (static_cast<std::size_t>(in.gcount()) != size) {
    throw InputError(path + ": checkpoint truncated: expected " + std::to_string(size) +
                     " parameter bytes, found " + std::to_string(in.gcount()));
  }
  return c;
}

}  // namespace ttsim::training
