// Asio/Beast spellings shared by the client's translation units (never by public headers).
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace amplifier::transport::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;

// Every socket, timer and coroutine of one client runs on this strand, so the client's shared
// state (pool, registry) needs no locks even if the caller runs its io_context on several
// threads.
using Strand = asio::strand<asio::io_context::executor_type>;
using TlsStream = beast::ssl_stream<tcp::socket>;

// Completion token: results as a tuple (error code first) instead of exceptions.
inline constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

}  // namespace amplifier::transport::detail
