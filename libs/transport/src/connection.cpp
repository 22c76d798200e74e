#include "connection.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace amplifier::transport::detail {

Connection::Connection(const Strand &strand, std::string pool_key)
    : pool_key_(std::move(pool_key)), resolver_(strand), socket_(strand) {}

TlsStream &Connection::start_tls(ssl::context &context) {
  tls_ = std::make_unique<TlsStream>(std::move(socket_), context);
  return *tls_;
}

void Connection::close() {
  boost::system::error_code ignored;
  resolver_.cancel();
  socket().shutdown(tcp::socket::shutdown_both, ignored);
  socket().close(ignored);
}

bool Connection::looks_alive() {
  if (!socket().is_open()) return false;
  char byte = 0;
  const auto received =
      ::recv(socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  // Nothing to read is the only healthy state: 0 is the peer's FIN, data is unsolicited (a
  // TLS close_notify, a stray response), an error is an error.
  return received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

ConnectionPool::ConnectionPool(std::size_t max_idle_per_key, std::chrono::milliseconds idle_ttl)
    : max_idle_per_key_(max_idle_per_key), idle_ttl_(idle_ttl) {}

std::shared_ptr<Connection> ConnectionPool::acquire(const std::string &key) {
  const auto found = idle_.find(key);
  if (found == idle_.end()) return nullptr;
  auto &idle = found->second;
  const auto now = std::chrono::steady_clock::now();
  while (!idle.empty()) {
    std::shared_ptr<Connection> connection = std::move(idle.back());
    idle.pop_back();
    if (now - connection->idle_since <= idle_ttl_ && connection->looks_alive()) return connection;
    connection->close();
  }
  return nullptr;
}

void ConnectionPool::release(std::shared_ptr<Connection> connection) {
  auto &idle = idle_[connection->pool_key()];
  if (idle.size() >= max_idle_per_key_) {
    connection->close();
    return;
  }
  connection->idle_since = std::chrono::steady_clock::now();
  idle.push_back(std::move(connection));
}

void ConnectionPool::close_all() {
  for (auto &[key, idle] : idle_)
    for (auto &connection : idle) connection->close();
  idle_.clear();
}

}  // namespace amplifier::transport::detail
