// Who may drive the server from a browser, decided from a request's headers alone, before the
// Api sees it. A serve client is never trusted to grant anything (README "Security"): these
// checks keep a web page the user happens to visit, or a DNS name rebound to 127.0.0.1, from
// being such a client at all.
//  - Host must name this server: an IP address, `localhost`, or a name the operator allowed
//    (--allowed-host). A rebound name (attacker.example -> 127.0.0.1) is refused.
//  - A browser's Origin must be the server's own (http://HOST as the request names it) or the
//    one the operator named with --cors-origin ('*': any, only when a token is required).
//  - A POST or DELETE must say Content-Type: application/json: a page can send text/plain or a
//    form cross-origin without asking (a "simple request"), never JSON.
//  - The token comes as `Authorization: Bearer TOKEN` (the page takes it from the fragment of
//    the URL serve prints, /#token=TOKEN, into its origin's localStorage; no cookie, since a
//    cookie would reach every server on the same host, whatever its port).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::host::serve {

// The host part of a Host header ("127.0.0.1:8410" -> "127.0.0.1", "[::1]:80" -> "::1"),
// lower-cased; nullopt when the header is malformed.
std::optional<std::string> host_name_of(std::string_view host_header);

// Whether the Host header names this server (see the file comment). A missing Host is refused.
bool host_allowed(std::string_view host_header, const std::vector<std::string> &allowed_hosts);

// Whether a request with this Origin may be answered; no Origin (not a browser, or a browser's
// same-origin GET) always may.
bool origin_allowed(std::string_view origin, std::string_view host_header,
                    std::string_view cors_origin);

// Whether a Content-Type is JSON: application/json, with parameters (charset) or not.
bool is_json_content_type(std::string_view content_type);

}  // namespace amplifier::host::serve
