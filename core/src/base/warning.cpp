#include "ember/core/warning.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>

namespace ember {
namespace {

// The calling thread's innermost guard's handler (nullptr: none).
thread_local const WarningHandler* t_handler = nullptr;

// The process-wide handler. Held through a shared_ptr so that a thread calling
// it keeps it alive while another thread replaces it.
std::mutex g_mutex;
std::shared_ptr<const WarningHandler> g_handler;

void print_to_stderr(const std::string& message) {
  // One write per warning, so that lines from several threads do not interleave.
  const std::string line = "Ember warning: " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace

void warn(const std::string& message) {
  if (t_handler != nullptr) {
    (*t_handler)(message);
    return;
  }
  std::shared_ptr<const WarningHandler> handler;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    handler = g_handler;
  }
  if (handler) {
    (*handler)(message);
  } else {
    print_to_stderr(message);
  }
}

WarningHandler set_warning_handler(WarningHandler handler) {
  std::shared_ptr<const WarningHandler> next;
  if (handler) next = std::make_shared<const WarningHandler>(std::move(handler));
  std::shared_ptr<const WarningHandler> previous;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    previous = std::exchange(g_handler, std::move(next));
  }
  return previous ? *previous : WarningHandler();
}

WarningHandlerGuard::WarningHandlerGuard(WarningHandler handler)
    : handler_(handler ? std::move(handler) : WarningHandler(print_to_stderr)), previous_(t_handler) {
  t_handler = &handler_;
}

WarningHandlerGuard::~WarningHandlerGuard() { t_handler = previous_; }

WarningCapture::WarningCapture()
    : guard_([this](const std::string& message) { messages_.push_back(message); }) {}

}  // namespace ember
