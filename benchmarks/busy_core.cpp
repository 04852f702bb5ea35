#include "busy_core.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ember_bench {

BusyCore::BusyCore() {
  child_ = fork();
  if (child_ < 0) throw std::runtime_error(std::string("BusyCore: fork failed: ") + std::strerror(errno));
  if (child_ == 0) {
    // Only async-signal-safe calls in the child of a multithreaded process:
    // no allocation, no locks; just arithmetic until SIGKILL.
    volatile double x = 1.0;
    for (;;) x = x * 1.0000001 + 1e-9;
  }
  // Give the scheduler a moment to place it.
  usleep(100'000);
}

BusyCore::~BusyCore() {
  if (child_ > 0) {
    kill(child_, SIGKILL);
    int status = 0;
    while (waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace ember_bench
