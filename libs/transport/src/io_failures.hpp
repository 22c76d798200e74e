// Asio/Beast/OpenSSL error codes -> kernel errors, by the phase of the exchange they hit.
#pragma once

#include "amplifier/errors.hpp"

#include <boost/system/error_code.hpp>

#include <string_view>

namespace amplifier::transport::detail {

enum class Phase { resolving, connecting, tunnelling, handshaking, sending, awaiting_head, reading_body };

// The peer closed or reset the connection (what a stale keep-alive connection does).
bool is_connection_drop(const boost::system::error_code &error);

KernelError io_failure(Phase phase, const boost::system::error_code &error, std::string_view peer);

}  // namespace amplifier::transport::detail
