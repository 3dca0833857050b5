#include "dse/report/gnuplot.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include <fmt/format.h>

#include "core/atomic_file.h"

namespace ttsim::dse {

namespace {

// Runs `argv` (argv[0] looked up on PATH) in `dir` with stderr to `log` (a path relative
// to `dir`) and stdin from /dev/null, no shell in between, in its own process group so a
// Ctrl-C at the terminal reaches only ttsim (which stops the run) and not the plotter;
// returns its wait status, or -1 when it could not be started.
int run_in(const std::string& dir, const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
    if (fd >= 0) {
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      close(null);
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

}  // namespace

bool run_gnuplot(const std::string& dir, const std::string& name, const std::string& script,
                 std::vector<std::string>& notes) {
  write_file_atomic(dir + "/" + name + ".gp", script);
  // The SVG goes to a temporary named as core/atomic_file.h names them (a run killed while
  // plotting leaves a leftover the next run of the folder removes), then replaces the plot
  // unless that is not a regular file.
  require_replaceable_output(dir + "/" + name + ".svg");
  const std::string tmp_name = name + ".svg.tmp." + std::to_string(getpid());
  const std::string tmp = dir + "/" + tmp_name;
  std::filesystem::remove(tmp);
  const std::vector<std::string> argv = {"gnuplot", "-e", "outfile=" + gnuplot_quote(tmp_name), name + ".gp"};
  const int status = run_in(dir, argv, name + ".gnuplot.log");
  if (status != -1 && WIFSIGNALED(status)) {
    notes.push_back(fmt::format("{}.svg not drawn: gnuplot was interrupted (killed by signal {})", name,
                                WTERMSIG(status)));
    std::filesystem::remove(tmp);
    return false;
  }
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !std::filesystem::exists(tmp)) {
    notes.push_back(name + ".svg not drawn: gnuplot failed or is not installed (see " + name +
                    ".gnuplot.log)");
    std::filesystem::remove(tmp);
    return false;
  }
  std::filesystem::rename(tmp, dir + "/" + name + ".svg");
  const std::string log = dir + "/" + name + ".gnuplot.log";
  std::error_code ec;
  if (std::filesystem::is_regular_file(std::filesystem::symlink_status(log, ec))) std::filesystem::remove(log, ec);
  return true;
}

std::string gnuplot_head(const std::string& name, int width, int height) {
  return fmt::format(
      "set terminal svg size {},{} fixed noenhanced font 'sans,12' background rgb 'white'\n"
      "if (!exists(\"outfile\")) outfile = {}\n"
      "set output outfile\nset grid\nset datafile separator ','\nset datafile columnheaders\n",
      width, height, gnuplot_quote(name + ".svg"));
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
