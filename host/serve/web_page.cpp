#include "web_assets.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace amplifier::host::serve {
namespace {

// The page loads its own script, style and icon and talks to this server only: nothing
// inline, nothing from elsewhere, and it may not be framed.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string_view content_type(std::string_view name) {
  struct Type {
    std::string_view extension, type;
  };
  static constexpr Type kTypes[] = {{".html", "text/html; charset=utf-8"},
                                    {".js", "text/javascript; charset=utf-8"},
                                    {".css", "text/css; charset=utf-8"},
                                    {".svg", "image/svg+xml"},
                                    {".png", "image/png"},
                                    {".json", "application/json"}};
  for (const auto &[extension, type] : kTypes)
    if (name.ends_with(extension)) return type;
  return "application/octet-stream";
}

// If-None-Match is "*" or a list of ETags, each maybe weak (W/"..."): a weak match is enough
// for a GET (RFC 9110 13.1.2).
bool etag_listed(std::string_view if_none_match, std::string_view etag) {
  while (!if_none_match.empty()) {
    const auto comma = std::min(if_none_match.find(','), if_none_match.size());
    std::string_view candidate = trim_blanks(if_none_match.substr(0, comma));
    if (candidate.starts_with("W/")) candidate.remove_prefix(2);
    if (candidate == "*" || candidate == etag) return true;
    if_none_match.remove_prefix(std::min(comma + 1, if_none_match.size()));
  }
  return false;
}

const WebAsset *find_asset(std::string_view name) {
  for (const auto &asset : web_assets())
    if (asset.name == name) return &asset;
  return nullptr;
}

}  // namespace

ApiResponse web_asset_response(std::string_view name, std::string_view if_none_match) {
  const WebAsset *asset = find_asset(name);
  if (!asset) throw ApiError(404, "not_found", fmt::format("no page asset '{}'", name));
  ApiResponse response;
  response.headers = {{"Content-Security-Policy", std::string(kContentSecurityPolicy)},
                      {"X-Content-Type-Options", "nosniff"},
                      {"Referrer-Policy", "no-referrer"},
                      // Revalidated on every load (a 304 when unchanged), so a new binary's
                      // page is never mixed with an old cached script.
                      {"Cache-Control", "no-cache"},
                      {"ETag", std::string(asset->etag)}};
  if (etag_listed(if_none_match, asset->etag)) {
    response.status = 304;
    return response;
  }
  response.content_type = std::string(content_type(asset->name));
  response.body = std::string(asset->bytes);
  return response;
}

}  // namespace amplifier::host::serve
