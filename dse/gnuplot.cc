#include "dse/gnuplot.h"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "core/atomic_file.h"

namespace ttsim::dse {

bool run_gnuplot(const std::string& dir, const std::string& name, const std::string& script,
                 std::vector<std::string>& notes) {
  write_file_atomic(dir + "/" + name + ".gp", script);
  const std::string tmp = dir + "/" + name + ".svg.tmp";
  const std::string cmd = "cd '" + dir + "' && gnuplot -e \"outfile='" + name + ".svg.tmp'\" '" +
                          name + ".gp' 2>'" + name + ".gnuplot.log'";
  if (std::system(cmd.c_str()) != 0 || !std::filesystem::exists(tmp)) {
    notes.push_back(name + ".svg not drawn: gnuplot failed or is not installed (see " + name +
                    ".gnuplot.log)");
    std::filesystem::remove(tmp);
    return false;
  }
  std::filesystem::rename(tmp, dir + "/" + name + ".svg");
  std::filesystem::remove(dir + "/" + name + ".gnuplot.log");
  return true;
}

std::string gnuplot_head(int width, int height) {
  return fmt::format(
      "set terminal svg size {},{} fixed noenhanced font 'sans,12' background rgb 'white'\n"
      "set output outfile\nset grid\nset datafile separator ','\nset datafile columnheaders\n",
      width, height);
}

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace ttsim::dse
