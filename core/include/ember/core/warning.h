#pragma once
// Warnings: something a caller should know about that did not stop the call
// (PyTorch's TORCH_WARN / c10::WarningHandler). An op that returns a usable but
// partial or approximate result reports it here, e.g. a truncated video read
// without `strict` (docs/io.md): the result comes back and the warning goes to
// the handler.
//
// Where a warning goes, first match wins:
//   1. the calling thread's innermost WarningHandlerGuard / WarningCapture;
//   2. the process-wide handler of set_warning_handler;
//   3. the default: one line "Ember warning: <message>" on stderr.
// Guards are per thread: warnings raised on another thread (a DataLoader
// worker, say) go to the process-wide handler, which must therefore be safe to
// call from several threads at once. A handler may throw (to turn warnings into
// errors); the exception propagates out of the op that warned.
#include <functional>
#include <string>
#include <vector>

#include "ember/core/error.h"

namespace ember {

using WarningHandler = std::function<void(const std::string& message)>;

// Reports `message` to the current handler (see above).
void warn(const std::string& message);

// Sets the process-wide handler and returns the previous one (empty when it was
// the default). An empty handler restores the default (stderr).
WarningHandler set_warning_handler(WarningHandler handler);

// Routes the calling thread's warnings to `handler` while alive (nestable:
// the innermost guard wins; destroy guards in reverse order of creation). An
// empty handler prints them (the default), whatever the process-wide one is.
class WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler handler);
  ~WarningHandlerGuard();
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler handler_;
  const WarningHandler* previous_;
};

// Collects the calling thread's warnings while alive, instead of printing them:
//   WarningCapture capture;
//   auto clip = io::read_video("maybe_cut.mp4");
//   if (!capture.messages().empty()) { ... }
class WarningCapture {
 public:
  WarningCapture();
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
  WarningHandlerGuard guard_;
};

}  // namespace ember

// EMBER_WARN("op: message ", value, ...): ember::warn of the concatenated arguments.
#define EMBER_WARN(...) ::ember::warn(::ember::detail::concat(__VA_ARGS__))
