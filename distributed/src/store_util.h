#pragma once
// Helpers shared by the Store implementations: integer values as c10d stores
// them (decimal text) and the wording of timeout errors.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ember::distributed::detail {

// The integer in value (decimal text, as add() writes it); ember::Error
// naming the store, op and key when it is not one.
int64_t parse_counter(const std::string& value, const char* store, const std::string& key);

// "key 'a', key 'b'" for error messages (bytes other than printable ASCII escaped).
std::string describe_keys(const std::vector<std::string>& keys);

// Throws the timeout ember::Error: "<store>: timed out after <elapsed> ms
// (timeout <timeout> ms) waiting for keys [...]".
[[noreturn]] void throw_wait_timeout(const std::string& store, const std::vector<std::string>& missing,
                                     std::chrono::steady_clock::duration elapsed,
                                     std::chrono::milliseconds timeout);

}  // namespace ember::distributed::detail
