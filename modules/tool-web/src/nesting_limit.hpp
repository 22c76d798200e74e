// A guard in front of the HTML parser. The HTML5 tree builder checks element scope by walking
// the stack of open elements, so its time grows with the number of tags times the nesting
// depth: a 400 KB page of unclosed <div>s takes half a minute, a few MB hours. This scanner
// follows the nesting the way the tree builder will (closely enough: void elements, elements
// whose end tag is optional, raw-text elements, comments, end tags that match nothing) and
// finds where it first gets too deep, so the page can be cut there.
#pragma once

#include <cstddef>
#include <string_view>

namespace tool_web {

// The length of the longest prefix of `html` in which elements nest at most `max_depth` deep:
// html.size() for any ordinary page.
std::size_t shallow_prefix(std::string_view html, std::size_t max_depth);

}  // namespace tool_web
