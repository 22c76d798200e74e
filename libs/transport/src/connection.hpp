// One client connection (plain TCP, or TLS over TCP) and the per-host pool of idle ones.
#pragma once

#include "asio_types.hpp"

#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace amplifier::transport::detail {

class Connection {
 public:
  Connection(const Strand &strand, std::string pool_key);

  tcp::socket &socket() { return tls_ ? tls_->next_layer() : socket_; }
  tcp::resolver &resolver() { return resolver_; }
  bool is_tls() const { return tls_ != nullptr; }
  TlsStream &tls() { return *tls_; }
  // Wraps the connected socket in a TLS stream (the handshake is the caller's).
  TlsStream &start_tls(ssl::context &context);

  // Closes at once: pending operations complete with operation_aborted. Never throws.
  void close();
  // Non-blocking check of an idle connection: false once the peer has closed it or sent
  // something unexpected.
  bool looks_alive();

  const std::string &pool_key() const { return pool_key_; }
  beast::flat_buffer &read_buffer() { return read_buffer_; }
  bool served_a_response() const { return served_a_response_; }
  void mark_served() { served_a_response_ = true; }
  std::chrono::steady_clock::time_point idle_since;

 private:
  std::string pool_key_;
  tcp::resolver resolver_;
  tcp::socket socket_;
  std::unique_ptr<TlsStream> tls_;
  beast::flat_buffer read_buffer_;  // bytes read past the end of the previous message
  bool served_a_response_ = false;
};

class ConnectionPool {
 public:
  ConnectionPool(std::size_t max_idle_per_key, std::chrono::milliseconds idle_ttl);

  // The most recently used live idle connection for `key`, or null.
  std::shared_ptr<Connection> acquire(const std::string &key);
  // Keeps `connection` for reuse, or closes it when the key's idle list is full.
  void release(std::shared_ptr<Connection> connection);
  void close_all();

 private:
  std::size_t max_idle_per_key_;
  std::chrono::milliseconds idle_ttl_;
  std::unordered_map<std::string, std::vector<std::shared_ptr<Connection>>> idle_;
};

}  // namespace amplifier::transport::detail
