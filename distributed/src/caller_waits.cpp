#include "caller_waits.h"

namespace ember::distributed::detail {

namespace {
thread_local bool caller_waits = false;
}  // namespace

CallerWaits::CallerWaits(bool waits) : previous_(caller_waits) { caller_waits = waits; }
CallerWaits::~CallerWaits() { caller_waits = previous_; }
bool CallerWaits::active() { return caller_waits; }

}  // namespace ember::distributed::detail
