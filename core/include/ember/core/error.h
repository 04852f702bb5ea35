#pragma once
// ember::Error and the checking macros every op uses to reject bad input.
#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

// The one exception type Ember throws for invalid calls. Its message names the
// op and the offending shapes, dtypes or values.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream ss;
  (ss << ... << args);
  return ss.str();
}
[[noreturn]] void throw_error(const std::string& message);
}  // namespace detail

}  // namespace ember

// EMBER_CHECK(cond, "op: message ", value, ...): throws ember::Error when cond is false.
#define EMBER_CHECK(cond, ...)                                          \
  do {                                                                  \
    if (!(cond)) [[unlikely]]                                           \
      ::ember::detail::throw_error(::ember::detail::concat(__VA_ARGS__)); \
  } while (0)

#define EMBER_FAIL(...) ::ember::detail::throw_error(::ember::detail::concat(__VA_ARGS__))
