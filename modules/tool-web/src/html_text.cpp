#include "html_text.hpp"

#include "nesting_limit.hpp"
#include "text_writer.hpp"
#include "web_url.hpp"

#include <gumbo.h>

#include <memory>
#include <optional>
#include <vector>

namespace tool_web {

namespace {

// Deeper than this the structure is dropped and only the text is kept (walked without
// recursion), so a page of a million nested tags cannot exhaust the stack.
constexpr int kMaxDepth = 200;

using Output = std::unique_ptr<GumboOutput, void (*)(GumboOutput *)>;

Output parse(std::string_view html) {
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;  // parse errors are not reported, so do not keep them
  return Output(gumbo_parse_with_options(&options, html.data(), html.size()),
                [](GumboOutput *output) { gumbo_destroy_output(&kGumboDefaultOptions, output); });
}

const char *attribute(const GumboNode *node, const char *name) {
  const GumboAttribute *found = gumbo_get_attribute(&node->v.element.attributes, name);
  return found ? found->value : nullptr;
}

bool is_element(const GumboNode *node) { return node->type == GUMBO_NODE_ELEMENT; }

std::vector<const GumboNode *> children_of(const GumboNode *node) {
  const GumboVector &children = node->v.element.children;
  std::vector<const GumboNode *> out;
  for (unsigned i = 0; i < children.length; ++i)
    out.push_back(static_cast<const GumboNode *>(children.data[i]));
  return out;
}

// The text under `node`, whitespace as it is and <br> as a line break, walked with an explicit
// stack (any depth).
std::string text_under(const GumboNode *node) {
  std::string text;
  std::vector<const GumboNode *> stack{node};
  while (!stack.empty()) {
    const GumboNode *current = stack.back();
    stack.pop_back();
    if (current->type == GUMBO_NODE_TEXT || current->type == GUMBO_NODE_WHITESPACE ||
        current->type == GUMBO_NODE_CDATA) {
      text += current->v.text.text;
    } else if (is_element(current)) {
      if (current->v.element.tag == GUMBO_TAG_BR) text += '\n';
      const auto children = children_of(current);
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
  }
  return text;
}

const GumboNode *find_child(const GumboNode *node, GumboTag tag) {
  if (!node || !is_element(node)) return nullptr;
  for (const GumboNode *child : children_of(node))
    if (is_element(child) && child->v.element.tag == tag) return child;
  return nullptr;
}

std::string collapsed(std::string_view text) {
  TextWriter writer;
  writer.text(text);
  return writer.finish();
}

bool hidden(const GumboNode *node) {
  if (attribute(node, "hidden")) return true;
  if (const char *aria = attribute(node, "aria-hidden"); aria && std::string_view(aria) == "true")
    return true;
  if (const char *role = attribute(node, "role"); role && std::string_view(role) == "navigation")
    return true;
  const char *style = attribute(node, "style");
  if (!style) return false;
  std::string compact;
  for (const char *c = style; *c; ++c)
    if (*c != ' ') compact += *c;
  return compact.find("display:none") != std::string::npos;
}

// Never shown: code, styling, embedded objects, navigation and form controls.
bool dropped_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_EMBED:
    case GUMBO_TAG_CANVAS:
    case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_VIDEO:
    case GUMBO_TAG_MAP:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_TEXTAREA:
      return true;
    default:
      return false;
  }
}

// Blocks set off by a blank line; other block elements by a line break.
int block_breaks(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_P:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_TABLE:
      return 2;
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_LEGEND:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_BODY:
      return 1;
    default:
      return 0;
  }
}

int heading_level(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_H1:
      return 1;
    case GUMBO_TAG_H2:
      return 2;
    case GUMBO_TAG_H3:
      return 3;
    case GUMBO_TAG_H4:
      return 4;
    case GUMBO_TAG_H5:
      return 5;
    case GUMBO_TAG_H6:
      return 6;
    default:
      return 0;
  }
}

bool is_inline_code(GumboTag tag) {
  return tag == GUMBO_TAG_CODE || tag == GUMBO_TAG_KBD || tag == GUMBO_TAG_SAMP ||
         tag == GUMBO_TAG_TT;
}

class Renderer {
 public:
  explicit Renderer(std::string base_url) : base_url_(std::move(base_url)) {}

  void node(const GumboNode *node, int depth) {
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_WHITESPACE:
      case GUMBO_NODE_CDATA:
        out_.text(node->v.text.text);
        return;
      case GUMBO_NODE_ELEMENT:
        if (depth > kMaxDepth) return out_.text(text_under(node));
        return element(node, depth);
      default:
        return;  // comments, templates, the document node's doctype
    }
  }

  std::string finish() { return out_.finish(); }

 private:
  struct List {
    bool ordered = false;
    long next = 1;
  };

  void children(const GumboNode *node, int depth) {
    for (const GumboNode *child : children_of(node)) this->node(child, depth + 1);
  }

  bool skipped(const GumboNode *node) const {
    const GumboTag tag = node->v.element.tag;
    if (dropped_tag(tag) || hidden(node)) return true;
    // The page's own banner and footer go; an article's header (its title, byline) stays.
    return (tag == GUMBO_TAG_HEADER || tag == GUMBO_TAG_FOOTER) && content_depth_ == 0;
  }

  void element(const GumboNode *node, int depth) {
    if (skipped(node)) return;
    const GumboTag tag = node->v.element.tag;
    if (const int level = heading_level(tag)) return heading(node, depth, level);
    switch (tag) {
      case GUMBO_TAG_PRE:
        return out_.code_block(text_under(node));
      case GUMBO_TAG_UL:
      case GUMBO_TAG_OL:
        return list(node, depth, tag == GUMBO_TAG_OL);
      case GUMBO_TAG_LI:
        return list_item(node, depth);
      case GUMBO_TAG_BLOCKQUOTE:
      case GUMBO_TAG_DD:
        return indented(node, depth, tag == GUMBO_TAG_DD ? "  " : "> ");
      case GUMBO_TAG_BR:
        return out_.block(1);
      case GUMBO_TAG_HR:
        out_.block(2);
        out_.literal("---");
        return out_.block(2);
      case GUMBO_TAG_A:
        return link(node, depth);
      case GUMBO_TAG_IMG:
        return image(node);
      case GUMBO_TAG_TR:
        return table_row(node, depth);
      case GUMBO_TAG_TD:
      case GUMBO_TAG_TH:
        if (!cells_.empty() && cells_.back()++ > 0) out_.marker("|");
        return children(node, depth);
      case GUMBO_TAG_ARTICLE:
      case GUMBO_TAG_MAIN:
        ++content_depth_;
        block(node, depth, 2);
        --content_depth_;
        return;
      default:
        break;
    }
    if (is_inline_code(tag)) return wrapped(node, depth, "`", "`");
    block(node, depth, block_breaks(tag));
  }

  void block(const GumboNode *node, int depth, int breaks) {
    if (breaks) out_.block(breaks);
    children(node, depth);
    if (breaks) out_.block(breaks);
  }

  void wrapped(const GumboNode *node, int depth, std::string open, std::string_view close) {
    out_.open_inline(std::move(open));
    children(node, depth);
    out_.close_inline(close);
  }

  void heading(const GumboNode *node, int depth, int level) {
    out_.block(2);
    wrapped(node, depth, std::string(static_cast<std::size_t>(level), '#') + " ", "");
    out_.block(2);
  }

  void list(const GumboNode *node, int depth, bool ordered) {
    const int breaks = lists_.empty() ? 2 : 1;
    List list{ordered, 1};
    if (const char *start = attribute(node, "start")) list.next = std::strtol(start, nullptr, 10);
    lists_.push_back(list);
    block(node, depth, breaks);
    lists_.pop_back();
  }

  void list_item(const GumboNode *node, int depth) {
    std::string marker = "-";
    if (!lists_.empty() && lists_.back().ordered)
      marker = std::to_string(lists_.back().next++) + ".";
    out_.block(1);
    out_.marker(marker);
    out_.push_prefix(std::string(marker.size() + 1, ' '));
    children(node, depth);
    out_.pop_prefix();
    out_.block(1);
  }

  void indented(const GumboNode *node, int depth, std::string prefix) {
    const int breaks = prefix == "> " ? 2 : 1;
    out_.block(breaks);
    out_.push_prefix(std::move(prefix));
    children(node, depth);
    out_.pop_prefix();
    out_.block(breaks);
  }

  void table_row(const GumboNode *node, int depth) {
    cells_.push_back(0);
    block(node, depth, 1);
    cells_.pop_back();
  }

  void link(const GumboNode *node, int depth) {
    const char *href = attribute(node, "href");
    const std::optional<std::string> target = href ? link_target(href) : std::nullopt;
    if (!target) return children(node, depth);
    wrapped(node, depth, "[", "](" + *target + ")");
  }

  // Only links a reader can follow: http(s) and mailto. In-page anchors and script links
  // are shown as their text.
  std::optional<std::string> link_target(std::string_view href) const {
    if (href.empty() || href.front() == '#') return std::nullopt;
    auto resolved = resolve_reference(base_url_, href);
    if (!resolved) return std::nullopt;
    for (std::string_view scheme : {"http://", "https://", "mailto:"})
      if (resolved->starts_with(scheme)) return resolved;
    return std::nullopt;
  }

  void image(const GumboNode *node) {
    const char *alt = attribute(node, "alt");
    if (!alt || collapsed(alt).empty()) return;
    out_.text("[image: " + collapsed(alt) + "]");
  }

  std::string base_url_;
  TextWriter out_;
  std::vector<List> lists_;
  std::vector<int> cells_;  // cells seen in each open table row
  int content_depth_ = 0;   // open <article> / <main> elements
};

// The page's <base href>, resolved against the page's own URL.
std::string base_url_of(const GumboNode *head, std::string_view page_url) {
  const GumboNode *base = find_child(head, GUMBO_TAG_BASE);
  const char *href = base ? attribute(base, "href") : nullptr;
  if (!href) return std::string(page_url);
  return resolve_reference(page_url, href).value_or(std::string(page_url));
}

}  // namespace

HtmlPage html_to_text(std::string_view html, std::string_view page_url) {
  const std::size_t shallow = shallow_prefix(html, kMaxNesting);
  const Output output = parse(html.substr(0, shallow));
  const GumboNode *root = output->root;
  const GumboNode *head = find_child(root, GUMBO_TAG_HEAD);
  HtmlPage page;
  if (const GumboNode *title = find_child(head, GUMBO_TAG_TITLE))
    page.title = collapsed(text_under(title));
  Renderer renderer(base_url_of(head, page_url));
  renderer.node(root, 0);
  page.text = renderer.finish();
  page.cut_at_depth = shallow < html.size();
  return page;
}

}  // namespace tool_web
