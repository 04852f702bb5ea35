#pragma once
// Callbacks at the end of the running backward pass (torch's
// Variable._execution_engine.queue_callback). A hook that runs during
// backward (a tensor hook, a post-accumulate-grad hook) queues work that
// must wait for the whole pass: DistributedDataParallel's reducer waits for
// its gradient all_reduces there. Callbacks run on the thread that called
// backward, after every node ran, in the order they were queued (a callback
// may queue more); a pass that fails drops them.
#include <functional>

namespace ember::autograd {

// Queues callback for the end of the innermost backward pass running on this
// thread; ember::Error when no backward pass runs.
void queue_callback(std::function<void()> callback);
// Whether a backward pass runs on this thread.
bool in_backward_pass();

}  // namespace ember::autograd
