// What a response's body is, from its Content-Type (and a look at the bytes when there is none),
// and turning it into valid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace tool_web {

enum class ContentKind { html, json, text, binary };

struct ContentType {
  std::string media_type;  // lower case, no parameters; empty when the header is missing
  std::string charset;     // lower case; empty when not given
};

ContentType parse_content_type(std::string_view header);

// html for HTML and XHTML; json for JSON types; text for text/*, XML, JavaScript, YAML and
// friends; binary for everything else (images, PDFs, archives, octet streams). Without a
// media type the body decides: NUL bytes mean binary, "<!doctype html" or "<html" HTML, else
// text. A textual type whose body holds NUL bytes is binary too.
ContentKind classify(const ContentType &type, std::string_view body);

// The charset an HTML document declares in a <meta> among its first bytes, lower case.
std::string meta_charset(std::string_view html);

// `body` as UTF-8: ISO-8859-1 / Windows-1252 / ASCII bodies are converted (Windows-1252 as
// Latin-1), anything else is taken as UTF-8 with invalid sequences replaced by U+FFFD.
std::string to_utf8(std::string_view body, std::string_view charset);

}  // namespace tool_web
