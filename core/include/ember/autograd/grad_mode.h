#pragma once
// Grad modes (thread-local, as in PyTorch):
//  - grad mode on (default): ops on tensors that require grad record the graph;
//  - NoGradGuard / AutoGradMode(false): nothing is recorded;
//  - InferenceMode: no recording, and tensors created under it are marked as
//    inference tensors, which can never enter autograd later.
namespace ember {

bool is_grad_enabled();
void set_grad_enabled(bool enabled);

// Sets grad mode for a scope and restores the previous one.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~AutoGradMode() { set_grad_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
struct EnableGradGuard : AutoGradMode {
  EnableGradGuard() : AutoGradMode(true) {}
};

// Whether tensors created now become inference tensors.
bool is_inference_mode_enabled();

class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return is_inference_mode_enabled(); }

 private:
  bool prev_grad_, prev_inference_;
};

}  // namespace ember
