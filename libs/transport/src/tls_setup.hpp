// TLS client context and per-connection settings (SNI, certificate and host-name checks).
#pragma once

#include "amplifier/errors.hpp"
#include "amplifier/transport/http_client.hpp"
#include "asio_types.hpp"

#include <memory>
#include <optional>

namespace amplifier::transport::detail {

// TLS 1.2 or newer, the system trust store plus options.extra_ca_file. Returns the problem
// when the context cannot be set up (e.g. an unreadable CA file).
std::optional<KernelError> configure_tls_context(ssl::context &context, const TlsOptions &options);

// A configured client context, or why there is none.
struct SharedTlsContext {
  std::shared_ptr<ssl::context> context;  // null when `error` is set
  std::optional<KernelError> error;
};

// The client context for `options`, shared by every HttpClient of this module library that
// uses the same options while any of them holds it. Loading the system trust store costs
// milliseconds and about a megabyte: a plan that only talks plain http never pays it, and a
// thousand sessions pay it once, not once each. Thread-safe.
SharedTlsContext shared_tls_context(const TlsOptions &options);

// Sets SNI (for names, not IP literals) and peer verification on a new connection.
std::optional<KernelError> prepare_tls_stream(TlsStream &stream, const std::string &host,
                                              bool host_is_ip, bool verify_peer);

}  // namespace amplifier::transport::detail
