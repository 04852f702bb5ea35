#pragma once
// A hint from init.h's blocking functions to the process group: the calling
// thread waits for the collective it is about to queue right away (Note
// [Inline collectives] in process_group_gloo.cpp), so the group need not wake
// its worker for it.
namespace ember::distributed::detail {

// While alive (on this thread), collectives queued are waited for at once.
class CallerWaits {
 public:
  explicit CallerWaits(bool waits);
  ~CallerWaits();
  CallerWaits(const CallerWaits&) = delete;
  CallerWaits& operator=(const CallerWaits&) = delete;

  // Whether the calling thread is inside a CallerWaits(true).
  static bool active();

 private:
  bool previous_;
};

}  // namespace ember::distributed::detail
