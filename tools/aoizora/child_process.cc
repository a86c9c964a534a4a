#include "tools/aoizora/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace az::cli {

namespace {

// Closes the descriptors it holds when it goes out of scope.
struct Fds {
  int fd[4] = {-1, -1, -1, -1};  // stdout read, stdout write, stderr read, stderr write
  ~Fds() {
    for (int f : fd) {
      if (f >= 0) close(f);
    }
  }
  void Close(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
};

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

StatusOr<std::string> SelfExecutable() {
  std::error_code ec;
  std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return InternalError("cannot read /proc/self/exe: " + ec.message());
  return path.string();
}

StatusOr<ChildRun> RunChild(const std::vector<std::string>& argv, double timeout_s) {
  if (argv.empty()) return InvalidArgument("RunChild: no command");
  Fds fds;
  // O_CLOEXEC: the child keeps only the ends dup2'ed onto 1 and 2.
  if (pipe2(fds.fd, O_CLOEXEC) != 0 || pipe2(fds.fd + 2, O_CLOEXEC) != 0) return InternalError(Errno("pipe2"));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds.fd[3], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return InternalError("cannot start '" + argv[0] + "': " + std::strerror(spawned));
  fds.Close(1);
  fds.Close(3);

  ChildRun run;
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  // Both pipes drained together, so that a child filling one never blocks.
  pollfd polls[2] = {{fds.fd[0], POLLIN, 0}, {fds.fd[2], POLLIN, 0}};
  std::string* sinks[2] = {&run.out, &run.err};
  int open_pipes = 2;
  char buffer[65536];
  while (open_pipes > 0) {
    int wait_ms = -1;
    if (!run.timed_out) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        // Killed: its pipes close as it dies, so the loop ends at their EOF.
        kill(pid, SIGKILL);
        run.timed_out = true;
      } else {
        wait_ms = static_cast<int>(std::min<int64_t>(left, 1000));
      }
    }
    int ready = poll(polls, 2, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return InternalError(Errno("poll"));
    }
    for (int i = 0; i < 2; ++i) {
      if (polls[i].fd < 0 || polls[i].revents == 0) continue;
      ssize_t n = read(polls[i].fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
        continue;
      }
      polls[i].fd = -1;  // EOF or an error: this pipe is done
      --open_pipes;
    }
  }
  // Both pipes closed; a child that closed them early still meets the deadline.
  int status = 0;
  rusage usage{};
  for (;;) {
    pid_t waited = wait4(pid, &status, run.timed_out ? 0 : WNOHANG, &usage);
    if (waited == pid) break;
    if (waited < 0 && errno != EINTR) return InternalError(Errno("wait4"));
    if (waited == 0 && Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      run.timed_out = true;
    } else if (waited == 0) {
      usleep(10000);
    }
  }
  run.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  run.peak_rss_kib = usage.ru_maxrss;
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  return run;
}

}  // namespace az::cli
