#include <ember/distributed/tcp_store.h>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <ember/core/error.h>

#include "store_util.h"
#include "tcp_store_protocol.h"

namespace ember::distributed {

using namespace tcp_store;
using Clock = std::chrono::steady_clock;

namespace {

std::string errno_text() { return std::strerror(errno); }

// Extra time a client gives the server to answer a kWait after the wait's own
// timeout: the server answers kTimeout itself, so this only catches a server
// that stopped answering altogether.
constexpr std::chrono::milliseconds kWaitReplySlack{5'000};

// One connect() attempt to any address of host:port; -1 with errno_out set
// when none accepted.
int try_connect(const std::string& host, uint16_t port, std::string& error_out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) {
    error_out = ::gai_strerror(rc);
    return -1;
  }
  int result = -1;
  for (addrinfo* ai = found; ai && result < 0; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      error_out = errno_text();
      continue;
    }
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      result = fd;
    } else {
      error_out = errno_text();
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  return result;
}

}  // namespace

struct TCPStore::Reply {
  uint8_t status = kOk;
  std::vector<std::string> args;
};

TCPStore::TCPStore(std::string host, const TCPStoreOptions& options)
    : TCPStore(std::move(host), options, /*count_in=*/true) {}

std::shared_ptr<Store> TCPStore::clone() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EMBER_CHECK(!broken_, "TCPStore::clone: the connection to the server at ", address(),
                " failed earlier; a server there now has lost the keys");
  }
  // The constructor is private: no make_shared.
  return std::shared_ptr<Store>(
      new TCPStore(host_, TCPStoreOptions{.port = port_, .timeout = timeout()}, /*count_in=*/false));
}

TCPStore::TCPStore(std::string host, const TCPStoreOptions& options, bool count_in)
    : Store(options.timeout), host_(std::move(host)), port_(options.port) {
  EMBER_CHECK(!host_.empty(), "TCPStore: the host is empty");
  EMBER_CHECK(!options.world_size || *options.world_size >= 1, "TCPStore: world_size must be at least 1, got ",
              *options.world_size);
  if (options.is_master) {
    server_ = std::make_unique<TCPStoreServer>(host_, port_);
    port_ = server_->port();
  } else {
    EMBER_CHECK(port_ != 0, "TCPStore: a client needs the server's port (port 0 only makes sense with is_master)");
  }
  // Connect, retrying while nothing listens yet: ranks start in any order.
  const auto start = Clock::now();
  auto backoff = std::chrono::milliseconds(5);
  std::string error;
  for (;;) {
    fd_ = try_connect(host_, port_, error);
    if (fd_ >= 0) break;
    const auto elapsed = Clock::now() - start;
    EMBER_CHECK(elapsed < options.timeout, "TCPStore: could not connect to the server at ", address(), " within ",
                std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), " ms (timeout ",
                options.timeout.count(), " ms): ", error);
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(100));
  }
  if (!count_in) return;
  try {
    count_in_and_wait_for_workers(options, start);
  } catch (...) {
    ::close(fd_);  // the destructor does not run for a constructor that throws
    throw;
  }
}

void TCPStore::count_in_and_wait_for_workers(const TCPStoreOptions& options, Clock::time_point start) {
  add(kWorkersKey, 1);
  if (options.is_master && options.world_size && options.wait_for_workers) {
    // c10d's waitForWorkers: every client counts itself in on connecting.
    for (;;) {
      const int64_t joined = add(kWorkersKey, 0);
      if (joined >= *options.world_size) break;
      const auto elapsed = Clock::now() - start;
      EMBER_CHECK(elapsed < options.timeout, "TCPStore: timed out after ",
                  std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), " ms (timeout ",
                  options.timeout.count(), " ms) waiting for ", *options.world_size,
                  " workers to connect to ", address(), "; ", joined, " did");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
  server_.reset();
}

std::string TCPStore::address() const {
  return host_.find(':') != std::string::npos ? "[" + host_ + "]:" + std::to_string(port_)
                                               : host_ + ":" + std::to_string(port_);
}

TCPStore::Reply TCPStore::request(uint8_t op, const std::vector<std::string>& args,
                                  std::chrono::milliseconds reply_timeout) {
  EMBER_CHECK(!broken_, "TCPStore: the connection to the server at ", address(),
              " failed earlier; this store cannot be used any more");
  auto fail = [&](const std::string& what) {
    broken_ = true;
    EMBER_FAIL("TCPStore: ", what, " (server at ", address(), ")");
  };
  const std::string message = encode(op, args);
  size_t sent = 0;
  while (sent < message.size()) {
    const ssize_t n = ::send(fd_, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("lost the connection to the server while sending: " + errno_text());
    sent += static_cast<size_t>(n);
  }
  const auto deadline = Clock::now() + reply_timeout;
  std::string buffer;
  Message reply;
  size_t consumed = 0;
  char chunk[65536];
  for (;;) {
    const Parse p = parse(buffer, reply, consumed);
    if (p == Parse::kMalformed) fail("malformed reply from the server");
    if (p == Parse::kComplete) break;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0)
      fail("the server did not answer within " + std::to_string(reply_timeout.count()) + " ms");
    pollfd pfd{fd_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 60'000)));
    if (ready < 0 && errno != EINTR) fail("poll failed: " + errno_text());
    if (ready <= 0) continue;
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) fail("the server closed the connection (did its process exit?)");
    if (n < 0) fail("lost the connection to the server: " + errno_text());
    buffer.append(chunk, static_cast<size_t>(n));
  }
  if (consumed != buffer.size()) fail("unexpected extra bytes from the server");
  if (reply.head == kError) {
    EMBER_FAIL(reply.args.empty() ? std::string("TCPStore: the server rejected a request") : reply.args[0]);
  }
  return {reply.head, std::move(reply.args)};
}

void TCPStore::set(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  request(kSet, {key, value}, timeout());
}

std::string TCPStore::get(const std::string& key) {
  wait({key});
  std::lock_guard<std::mutex> lock(mutex_);
  Reply r = request(kGet, {key}, timeout());
  EMBER_CHECK(r.status == kOk && r.args.size() == 1, "TCPStore::get: key ", detail::describe_keys({key}),
              " was deleted while being read (server at ", address(), ")");
  return std::move(r.args[0]);
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  std::lock_guard<std::mutex> lock(mutex_);
  Reply r = request(kAdd, {key, std::to_string(delta)}, timeout());
  return detail::parse_counter(r.args.at(0), "TCPStore", key);
}

std::string TCPStore::compare_set(const std::string& key, const std::string& expected,
                                  const std::string& desired) {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::move(request(kCompareSet, {key, expected, desired}, timeout()).args.at(0));
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mutex_);
  return request(kCheck, keys, timeout()).args.at(0) == "1";
}

bool TCPStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return request(kDelete, {key}, timeout()).args.at(0) == "1";
}

int64_t TCPStore::num_keys() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::stoll(request(kNumKeys, {}, timeout()).args.at(0));
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  EMBER_CHECK(timeout.count() > 0, "TCPStore::wait: the timeout must be positive, got ", timeout.count(), " ms");
  const auto start = Clock::now();
  std::vector<std::string> args;
  args.reserve(keys.size() + 1);
  args.push_back(std::to_string(timeout.count()));
  args.insert(args.end(), keys.begin(), keys.end());
  Reply r;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    r = request(kWait, args, timeout + kWaitReplySlack);
  }
  if (r.status == kTimeout)
    detail::throw_wait_timeout("TCPStore(" + address() + ")", r.args, Clock::now() - start, timeout);
}

}  // namespace ember::distributed
