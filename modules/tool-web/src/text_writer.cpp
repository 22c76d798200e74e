#include "text_writer.hpp"

#include <algorithm>

namespace tool_web {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

}  // namespace

void TextWriter::text(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_space(text[i])) {
      pending_space_ = !out_.empty();
      while (i < text.size() && is_space(text[i])) ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !is_space(text[end])) ++end;
    begin_content();
    out_.append(text.substr(i, end - i));
    i = end;
  }
}

void TextWriter::block(int line_breaks) {
  pending_space_ = false;
  if (out_.empty()) return;
  pending_breaks_ = std::max(pending_breaks_, line_breaks);
}

void TextWriter::code_block(std::string_view code) {
  while (!code.empty() && (code.front() == '\n' || code.front() == '\r')) code.remove_prefix(1);
  while (!code.empty() && is_space(code.back())) code.remove_suffix(1);
  if (code.empty()) return;
  block(2);
  literal("```");
  std::size_t start = 0;
  while (start <= code.size()) {
    std::size_t end = code.find('\n', start);
    if (end == std::string_view::npos) end = code.size();
    block(1);
    std::string_view line = code.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      pending_breaks_ = 0;  // an empty line inside the code: kept, with its prefix only
      out_ += '\n';
      for (const auto &prefix : prefixes_) out_ += prefix;
      trim_trailing_spaces();
    } else {
      literal(line);
    }
    start = end + 1;
  }
  block(1);
  literal("```");
  block(2);
}

void TextWriter::literal(std::string_view text) {
  if (text.empty()) return;
  begin_content();
  out_.append(text);
}

void TextWriter::marker(std::string_view text) {
  pending_space_ = true;
  literal(text);
  pending_space_ = true;
}

void TextWriter::push_prefix(std::string prefix) { prefixes_.push_back(std::move(prefix)); }

void TextWriter::pop_prefix() {
  if (!prefixes_.empty()) prefixes_.pop_back();
}

void TextWriter::open_inline(std::string open) { opens_.push_back(Open{std::move(open)}); }

bool TextWriter::close_inline(std::string_view close) {
  if (opens_.empty()) return false;
  const bool written = opens_.back().written;
  opens_.pop_back();
  if (written) out_.append(close);
  return written;
}

std::string TextWriter::finish() {
  trim_trailing_spaces();
  while (!out_.empty() && is_space(out_.back())) out_.pop_back();
  return std::move(out_);
}

void TextWriter::begin_content() {
  if (pending_breaks_ > 0) {
    trim_trailing_spaces();
    out_.append(static_cast<std::size_t>(pending_breaks_), '\n');
    pending_breaks_ = 0;
    at_line_start_ = true;
  }
  if (at_line_start_) {
    for (const auto &prefix : prefixes_) out_ += prefix;
  } else if (pending_space_) {
    out_ += ' ';
  }
  pending_space_ = false;
  at_line_start_ = false;
  for (auto &open : opens_) {
    if (open.written) continue;
    out_ += open.text;
    open.written = true;
  }
}

void TextWriter::trim_trailing_spaces() {
  while (!out_.empty() && (out_.back() == ' ' || out_.back() == '\t')) out_.pop_back();
}

}  // namespace tool_web
