#include "store_util.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <ember/core/error.h>

namespace ember::distributed::detail {

int64_t parse_counter(const std::string& value, const char* store, const std::string& key) {
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(value.c_str(), &end, 10);
  EMBER_CHECK(!value.empty() && errno == 0 && end == value.c_str() + value.size() && value.find('\0') == std::string::npos,
              store, "::add: the value of ", describe_keys({key}), " is not an integer: '", value, "'");
  return parsed;
}

std::string describe_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) out += ", ";
    out += "'";
    for (unsigned char c : keys[i]) {
      if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
        out += static_cast<char>(c);
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
      }
    }
    out += "'";
  }
  return out;
}

void throw_wait_timeout(const std::string& store, const std::vector<std::string>& missing,
                        std::chrono::steady_clock::duration elapsed, std::chrono::milliseconds timeout) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
  EMBER_FAIL(store, ": timed out after ", ms, " ms (timeout ", timeout.count(), " ms) waiting for ",
             missing.size() == 1 ? "key " : "keys [", describe_keys(missing), missing.size() == 1 ? "" : "]");
}

}  // namespace ember::distributed::detail
