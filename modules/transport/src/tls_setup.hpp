// TLS client context and per-connection settings (SNI, certificate and host-name checks).
#pragma once

#include "amplifier/errors.hpp"
#include "amplifier/transport/http_client.hpp"
#include "asio_types.hpp"

#include <optional>

namespace amplifier::transport::detail {

// TLS 1.2 or newer, the system trust store plus options.extra_ca_file. Returns the problem
// when the context cannot be set up (e.g. an unreadable CA file).
std::optional<KernelError> configure_tls_context(ssl::context &context, const TlsOptions &options);

// Sets SNI (for names, not IP literals) and peer verification on a new connection.
std::optional<KernelError> prepare_tls_stream(TlsStream &stream, const std::string &host,
                                              bool host_is_ip, bool verify_peer);

}  // namespace amplifier::transport::detail
