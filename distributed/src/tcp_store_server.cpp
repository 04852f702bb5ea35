#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>
#include <unordered_map>

#include <ember/core/error.h>
#include <ember/distributed/tcp_store.h>

#include "store_util.h"
#include "tcp_store_protocol.h"

namespace ember::distributed {

// Note [TCPStore server]: one thread runs poll() over the listening socket, a
// wake-up pipe (for shutdown) and every client connection, all non-blocking.
// Requests are answered in order per connection. A kWait whose keys are not
// all there parks the connection (no further requests are read from it; its
// client is blocked on the answer anyway) in `waiters` with a deadline; every
// change of the map re-checks the parked waits, and poll()'s timeout is the
// nearest deadline, at which the server answers kTimeout with the keys still
// missing. The client measures the elapsed time and words the error. Keys
// and values live only in the server's memory.
namespace {

using Clock = std::chrono::steady_clock;
using namespace tcp_store;

struct Connection {
  std::string in;
  std::string out;
  bool parked = false;  // a kWait is pending
};

struct Waiter {
  int fd;
  std::vector<std::string> keys;
  Clock::time_point deadline;
};

std::string errno_text() { return std::strerror(errno); }

}  // namespace

struct TCPStoreServer::State {
  std::string host;
  uint16_t port = 0;
  int listen_fd = -1;
  int wake_read = -1, wake_write = -1;
  std::thread thread;

  std::unordered_map<std::string, std::string> map;
  std::map<int, Connection> connections;
  std::vector<Waiter> waiters;

  void run();
  void accept_all();
  void close_connection(int fd);
  void read_from(int fd);
  void write_to(int fd);
  void handle(int fd, Connection& conn, const Message& request);
  void reply(Connection& conn, uint8_t status, const std::vector<std::string>& args = {}) {
    conn.out += encode(status, args);
  }
  std::vector<std::string> missing(const std::vector<std::string>& keys) const {
    std::vector<std::string> out;
    for (const auto& k : keys)
      if (!map.count(k)) out.push_back(k);
    return out;
  }
  void wake_waiters();
  void expire_waiters();
};

TCPStoreServer::TCPStoreServer(const std::string& host, uint16_t port) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.host = host;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
  EMBER_CHECK(rc == 0, "TCPStoreServer: cannot resolve ", host, ":", port, ": ", ::gai_strerror(rc));
  std::string last_error = "no address";
  for (addrinfo* ai = found; ai; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
      last_error = errno_text();
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      s.listen_fd = fd;
      break;
    }
    last_error = errno_text();
    ::close(fd);
  }
  ::freeaddrinfo(found);
  EMBER_CHECK(s.listen_fd >= 0, "TCPStoreServer: cannot listen on ", host, ":", port, ": ", last_error);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(s.listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  s.port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(s.listen_fd);
    EMBER_FAIL("TCPStoreServer: pipe2 failed: ", errno_text());
  }
  s.wake_read = pipe_fds[0];
  s.wake_write = pipe_fds[1];
  s.thread = std::thread([&s] { s.run(); });
}

TCPStoreServer::~TCPStoreServer() {
  State& s = *state_;
  const char byte = 1;
  while (::write(s.wake_write, &byte, 1) < 0 && errno == EINTR) {
  }
  s.thread.join();
  for (auto& [fd, conn] : s.connections) ::close(fd);
  ::close(s.listen_fd);
  ::close(s.wake_read);
  ::close(s.wake_write);
}

uint16_t TCPStoreServer::port() const { return state_->port; }
const std::string& TCPStoreServer::host() const { return state_->host; }

void TCPStoreServer::State::run() {
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    fds.push_back({wake_read, POLLIN, 0});
    fds.push_back({listen_fd, POLLIN, 0});
    for (auto& [fd, conn] : connections)
      fds.push_back({fd, static_cast<short>(POLLIN | (conn.out.empty() ? 0 : POLLOUT)), 0});
    int timeout_ms = -1;
    if (!waiters.empty()) {
      auto nearest = std::min_element(waiters.begin(), waiters.end(), [](const Waiter& a, const Waiter& b) {
                       return a.deadline < b.deadline;
                     })->deadline;
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(nearest - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, 60'000));
    }
    const int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) return;  // cannot happen with valid fds; the clients then see EOF
    if (n > 0) {
      if (fds[0].revents) return;
      if (fds[1].revents & POLLIN) accept_all();
      for (size_t i = 2; i < fds.size(); ++i) {
        const int fd = fds[i].fd;
        if (!connections.count(fd)) continue;
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(fd);
        if (connections.count(fd) && (fds[i].revents & POLLOUT)) write_to(fd);
      }
    }
    expire_waiters();
  }
}

void TCPStoreServer::State::accept_all() {
  for (;;) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;  // EAGAIN, or a connection that vanished before we took it
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    connections.emplace(fd, Connection{});
  }
}

void TCPStoreServer::State::close_connection(int fd) {
  waiters.erase(std::remove_if(waiters.begin(), waiters.end(), [fd](const Waiter& w) { return w.fd == fd; }),
                waiters.end());
  connections.erase(fd);
  ::close(fd);
}

void TCPStoreServer::State::read_from(int fd) {
  Connection& conn = connections.at(fd);
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      conn.in.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    close_connection(fd);  // EOF or error: the client left
    return;
  }
  size_t offset = 0;
  while (!conn.parked) {
    Message request;
    size_t consumed = 0;
    const Parse p = parse(conn.in, request, consumed, offset);
    if (p == Parse::kIncomplete) break;
    if (p == Parse::kMalformed) {
      close_connection(fd);
      return;
    }
    offset += consumed;
    handle(fd, conn, request);
  }
  conn.in.erase(0, offset);
  write_to(fd);
}

void TCPStoreServer::State::write_to(int fd) {
  Connection& conn = connections.at(fd);
  while (!conn.out.empty()) {
    const ssize_t n = ::send(fd, conn.out.data(), conn.out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      conn.out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close_connection(fd);
    return;
  }
}

void TCPStoreServer::State::handle(int fd, Connection& conn, const Message& request) {
  const auto& a = request.args;
  auto arity = [&](size_t n) { return a.size() == n; };
  switch (request.head) {
    case kSet:
      if (!arity(2)) break;
      map[a[0]] = a[1];
      reply(conn, kOk);
      wake_waiters();
      return;
    case kGet: {
      if (!arity(1)) break;
      auto it = map.find(a[0]);
      if (it == map.end())
        reply(conn, kNotFound);
      else
        reply(conn, kOk, {it->second});
      return;
    }
    case kAdd: {
      if (!arity(2)) break;
      try {
        auto it = map.find(a[0]);
        const int64_t value = (it == map.end() ? 0 : detail::parse_counter(it->second, "TCPStore", a[0])) +
                              detail::parse_counter(a[1], "TCPStore", a[0]);
        map[a[0]] = std::to_string(value);
        reply(conn, kOk, {std::to_string(value)});
        wake_waiters();
      } catch (const Error& e) {
        reply(conn, kError, {e.what()});
      }
      return;
    }
    case kCompareSet: {
      if (!arity(3)) break;
      auto it = map.find(a[0]);
      if (it == map.end()) {
        if (!a[1].empty()) {
          reply(conn, kOk, {a[1]});
          return;
        }
        it = map.emplace(a[0], a[2]).first;
      } else if (it->second == a[1]) {
        it->second = a[2];
      }
      reply(conn, kOk, {it->second});
      wake_waiters();
      return;
    }
    case kCheck:
      reply(conn, kOk, {missing(a).empty() ? "1" : "0"});
      return;
    case kDelete:
      if (!arity(1)) break;
      reply(conn, kOk, {map.erase(a[0]) ? "1" : "0"});
      return;
    case kNumKeys: {
      if (!arity(0)) break;
      int64_t count = 0;
      for (const auto& [key, value] : map) count += is_internal_key(key) ? 0 : 1;
      reply(conn, kOk, {std::to_string(count)});
      return;
    }
    case kWait: {
      if (a.empty()) break;
      std::vector<std::string> keys(a.begin() + 1, a.end());
      if (missing(keys).empty()) {
        reply(conn, kOk);
        return;
      }
      const int64_t timeout_ms = std::strtoll(a[0].c_str(), nullptr, 10);
      waiters.push_back({fd, std::move(keys), Clock::now() + std::chrono::milliseconds(timeout_ms)});
      conn.parked = true;
      return;
    }
    default:
      break;
  }
  reply(conn, kError, {"TCPStore server: malformed request (op " + std::to_string(request.head) + ", " +
                           std::to_string(a.size()) + " arguments)"});
}

void TCPStoreServer::State::wake_waiters() {
  for (auto it = waiters.begin(); it != waiters.end();) {
    if (missing(it->keys).empty()) {
      // The answer goes out on the next poll round (POLLOUT).
      Connection& conn = connections.at(it->fd);
      reply(conn, kOk);
      conn.parked = false;
      it = waiters.erase(it);
    } else {
      ++it;
    }
  }
}

void TCPStoreServer::State::expire_waiters() {
  const auto now = Clock::now();
  std::vector<int> resumed;
  for (auto it = waiters.begin(); it != waiters.end();) {
    if (it->deadline <= now) {
      Connection& conn = connections.at(it->fd);
      reply(conn, kTimeout, missing(it->keys));
      conn.parked = false;
      resumed.push_back(it->fd);
      it = waiters.erase(it);
    } else {
      ++it;
    }
  }
  for (int fd : resumed)
    if (connections.count(fd)) write_to(fd);
}

}  // namespace ember::distributed
