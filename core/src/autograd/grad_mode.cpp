// Thread-local grad mode, inference mode and the recorder's suspension flag.
#include "ember/autograd/grad_mode.h"

#include "autograd/record.h"

namespace ember {
namespace {
thread_local bool t_grad_enabled = true;
thread_local bool t_inference = false;
// Set while an op's forward runs under an active OpRecorder.
thread_local bool t_recording_suspended = false;
}  // namespace

bool is_grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool enabled) { t_grad_enabled = enabled; }
bool is_inference_mode_enabled() { return t_inference; }

InferenceMode::InferenceMode(bool enabled) : prev_grad_(t_grad_enabled), prev_inference_(t_inference) {
  t_inference = enabled;
  if (enabled) t_grad_enabled = false;
}
InferenceMode::~InferenceMode() {
  t_grad_enabled = prev_grad_;
  t_inference = prev_inference_;
}

namespace autograd {
bool is_recording() { return t_grad_enabled && !t_recording_suspended; }

SuspendRecording::SuspendRecording() : prev_(t_recording_suspended) { t_recording_suspended = true; }
SuspendRecording::~SuspendRecording() { t_recording_suspended = prev_; }

namespace detail {
bool set_recording_suspended(bool v) {
  const bool prev = t_recording_suspended;
  t_recording_suspended = v;
  return prev;
}
}  // namespace detail
}  // namespace autograd

}  // namespace ember
