#pragma once
// Another process that keeps one core busy while a workload is timed under
// load (Case::under_load): a forked child spinning on arithmetic until it is
// stopped. It stays in the harness's session, so the scheduler weighs it
// thread for thread against the workload's threads, whatever the machine's
// autogroup setting (in a session of its own, with autogroups, it would get
// half the machine against any number of the workload's threads).
#include <sys/types.h>

namespace ember_bench {

class BusyCore {
 public:
  BusyCore();  // starts the child
  ~BusyCore();  // kills and reaps it
  BusyCore(const BusyCore&) = delete;
  BusyCore& operator=(const BusyCore&) = delete;

 private:
  pid_t child_ = -1;
};

}  // namespace ember_bench
