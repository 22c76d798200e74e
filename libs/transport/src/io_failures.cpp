#include "io_failures.hpp"

#include "amplifier/transport/error_mapping.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/http/error.hpp>

namespace amplifier::transport::detail {

namespace asio_error = boost::asio::error;
namespace http = boost::beast::http;

namespace {

bool is_ssl_error(const boost::system::error_code &error) {
  return error.category() == asio_error::get_ssl_category() ||
         error.category() == boost::asio::ssl::error::get_stream_category();
}

bool is_truncation(const boost::system::error_code &error) {
  return error == asio_error::eof || error == http::error::partial_message ||
         error == http::error::end_of_stream || error == boost::asio::ssl::error::stream_truncated;
}

bool is_http_parse_error(const boost::system::error_code &error) {
  return error.category() == http::make_error_code(http::error::bad_version).category();
}

std::string text(std::string_view what, std::string_view peer, const boost::system::error_code &error) {
  return std::string(what) + " " + std::string(peer) + ": " + error.message();
}

}  // namespace

bool is_connection_drop(const boost::system::error_code &error) {
  return is_truncation(error) || error == asio_error::connection_reset ||
         error == asio_error::broken_pipe || error == asio_error::connection_aborted;
}

KernelError io_failure(Phase phase, const boost::system::error_code &error, std::string_view peer) {
  switch (phase) {
    case Phase::resolving:
      return transport_failure(ErrorKind::network, text("cannot resolve", peer, error));
    case Phase::connecting:
      return transport_failure(ErrorKind::network, text("cannot connect to", peer, error));
    case Phase::tunnelling:
      return transport_failure(ErrorKind::network, text("proxy tunnel to", peer, error));
    case Phase::handshaking: {
      KernelError failure = transport_failure(ErrorKind::network, text("TLS handshake with", peer, error));
      // A certificate the client does not trust will not become trusted by retrying.
      if (is_ssl_error(error) && !is_truncation(error)) failure.retryable = false;
      return failure;
    }
    case Phase::sending:
      return transport_failure(ErrorKind::network, text("sending the request to", peer, error));
    case Phase::awaiting_head:
      if (is_http_parse_error(error) && !is_truncation(error))
        return transport_failure(ErrorKind::stream, text("malformed response head from", peer, error));
      return transport_failure(ErrorKind::network, text("no response from", peer, error));
    case Phase::reading_body:
      if (is_truncation(error))
        return transport_failure(ErrorKind::stream, text("response body cut off by", peer, error));
      if (is_http_parse_error(error))
        return transport_failure(ErrorKind::stream, text("malformed response body from", peer, error));
      return transport_failure(ErrorKind::network, text("reading the response from", peer, error));
  }
  return transport_failure(ErrorKind::network, text("I/O failure with", peer, error));
}

}  // namespace amplifier::transport::detail
