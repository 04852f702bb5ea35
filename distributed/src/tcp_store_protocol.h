#pragma once
// The TCPStore wire format (private to Ember: the server and its clients are
// always the same code, so this is not c10d's format).
//   request: u8 op     | u32 argc | argc x (u32 length | bytes)
//   reply:   u8 status | u32 argc | argc x (u32 length | bytes)
// Integers are little-endian.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ember::distributed::tcp_store {

enum Op : uint8_t {
  kSet = 1,      // key value                  -> kOk
  kGet = 2,      // key                        -> kOk value | kNotFound
  kAdd = 3,      // key delta                  -> kOk new_value | kError message
  kCompareSet = 4,  // key expected desired    -> kOk value
  kCheck = 5,    // keys...                    -> kOk "1" | "0"
  kDelete = 6,   // key                        -> kOk "1" | "0"
  kNumKeys = 7,  //                            -> kOk count
  kWait = 8,     // timeout_ms keys...         -> kOk | kTimeout missing_keys...
};

enum Status : uint8_t { kOk = 0, kNotFound = 1, kError = 2, kTimeout = 3 };

// Keys starting with a NUL byte are Ember's own (the worker count); num_keys()
// leaves them out.
inline bool is_internal_key(const std::string& key) { return !key.empty() && key[0] == '\0'; }
inline const std::string kWorkersKey("\0ember/tcpstore/workers", 23);

// Longest argument accepted: a peer sending more is treated as broken.
inline constexpr uint32_t kMaxArgBytes = 1u << 30;

inline void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

inline std::string encode(uint8_t head, const std::vector<std::string>& args) {
  std::string out;
  out.push_back(static_cast<char>(head));
  put_u32(out, static_cast<uint32_t>(args.size()));
  for (const auto& a : args) {
    put_u32(out, static_cast<uint32_t>(a.size()));
    out += a;
  }
  return out;
}

struct Message {
  uint8_t head = 0;
  std::vector<std::string> args;
};

enum class Parse { kIncomplete, kComplete, kMalformed };

// Parses one message from buffer at offset; on kComplete, the `consumed` bytes
// from offset made it. An incomplete argument is not copied, so re-parsing as
// a large value trickles in stays cheap.
inline Parse parse(const std::string& buffer, Message& message, size_t& consumed, size_t offset = 0) {
  if (buffer.size() < offset + 5) return Parse::kIncomplete;
  const uint32_t argc = get_u32(&buffer[offset + 1]);
  if (argc > (1u << 20)) return Parse::kMalformed;
  size_t pos = offset + 5;
  std::vector<std::string> args;
  args.reserve(argc);
  for (uint32_t i = 0; i < argc; ++i) {
    if (buffer.size() - pos < 4) return Parse::kIncomplete;
    const uint32_t len = get_u32(&buffer[pos]);
    if (len > kMaxArgBytes) return Parse::kMalformed;
    pos += 4;
    if (buffer.size() - pos < len) return Parse::kIncomplete;
    args.emplace_back(buffer, pos, len);
    pos += len;
  }
  message.head = static_cast<uint8_t>(buffer[offset]);
  message.args = std::move(args);
  consumed = pos - offset;
  return Parse::kComplete;
}

}  // namespace ember::distributed::tcp_store
