// Runs a command in a child process and measures it: its wall-clock time, its
// peak resident memory and its output (bench --scale plans each row this way,
// so that a row's memory is its own). POSIX: posix_spawn, poll, wait4.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace az::cli {

struct ChildRun {
  bool timed_out = false;   // killed (SIGKILL) after the timeout
  int exit_code = -1;       // the exit status when it exited; -1 when a signal ended it
  int signal = 0;           // the signal that ended it, 0 when it exited
  double wall_s = 0;        // steady clock from before the spawn to after the wait
  int64_t peak_rss_kib = 0; // wait4's ru_maxrss: KiB on Linux
  std::string out, err;     // everything it wrote on stdout and stderr
};

// Runs argv[0] (a path, not searched on PATH) with argv, stdin from /dev/null,
// stdout and stderr captured; kills it after `timeout_s` seconds. An error
// only when it cannot be started.
StatusOr<ChildRun> RunChild(const std::vector<std::string>& argv, double timeout_s);

// The path of the running executable (/proc/self/exe resolved).
StatusOr<std::string> SelfExecutable();

}  // namespace az::cli
