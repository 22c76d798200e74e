#include "tls_setup.hpp"

#include "amplifier/transport/error_mapping.hpp"

#include <boost/asio/ssl/host_name_verification.hpp>

#include <openssl/ssl.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace amplifier::transport::detail {

std::optional<KernelError> configure_tls_context(ssl::context &context, const TlsOptions &options) {
  boost::system::error_code error;
  SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_2_VERSION);
  context.set_options(ssl::context::default_workarounds | ssl::context::no_compression, error);
  if (!error) context.set_default_verify_paths(error);
  if (!error && !options.extra_ca_file.empty())
    context.load_verify_file(options.extra_ca_file, error);
  if (!error) return std::nullopt;
  return transport_failure(ErrorKind::configuration,
                           "TLS setup failed (CA file '" + options.extra_ca_file +
                               "'): " + error.message());
}

SharedTlsContext shared_tls_context(const TlsOptions &options) {
  static std::mutex mutex;
  static std::map<std::pair<bool, std::string>, std::weak_ptr<ssl::context>> contexts;
  std::lock_guard lock(mutex);
  auto &slot = contexts[{options.verify_peer, options.extra_ca_file}];
  if (auto live = slot.lock()) return {std::move(live), std::nullopt};
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  if (auto error = configure_tls_context(*context, options)) return {nullptr, std::move(error)};
  slot = context;
  return {std::move(context), std::nullopt};
}

std::optional<KernelError> prepare_tls_stream(TlsStream &stream, const std::string &host,
                                              bool host_is_ip, bool verify_peer) {
  // SNI carries names only (RFC 6066 section 3); IP literals are checked against the SAN.
  if (!host_is_ip && !SSL_set_tlsext_host_name(stream.native_handle(), host.c_str()))
    return transport_failure(ErrorKind::configuration, "cannot set TLS SNI for '" + host + "'");
  boost::system::error_code error;
  if (verify_peer) {
    stream.set_verify_mode(ssl::verify_peer, error);
    if (!error) stream.set_verify_callback(ssl::host_name_verification(host), error);
  } else {
    stream.set_verify_mode(ssl::verify_none, error);
  }
  if (!error) return std::nullopt;
  return transport_failure(ErrorKind::configuration, "TLS setup failed: " + error.message());
}

}  // namespace amplifier::transport::detail
