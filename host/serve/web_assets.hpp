// The web chat page: the files of src/serve/web/, compiled into the binary at build time
// (cmake/embed_web_assets.cmake generates web_assets()), and how they are answered.
#pragma once
#include "api_types.hpp"

#include <span>
#include <string_view>

namespace amplifier::host::serve {

struct WebAsset {
  std::string_view name;   // the file name, e.g. "app.js"
  std::string_view bytes;  // the file's content
  std::string_view etag;   // a strong ETag (quoted) from the content's SHA-256
};

// Every embedded file, sorted by name.
std::span<const WebAsset> web_assets();

// The asset `name` with its content type, a self-only Content-Security-Policy, nosniff and its
// ETag; 304 without a body when `if_none_match` names that ETag. ApiError 404 for no such asset.
ApiResponse web_asset_response(std::string_view name, std::string_view if_none_match);

}  // namespace amplifier::host::serve
