// ${VAR} / ${VAR:-default} expansion for mount plans.
#include "amplifier/mount_plan.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>

namespace amplifier {
namespace {

bool is_name_start(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

// One ${...} reference found at some position of the text.
struct Reference {
  std::string_view name;
  std::optional<std::string_view> fallback;  // the raw text after ":-", itself expandable
  std::size_t end = 0;                       // one past the closing brace
};

// Finds the brace closing a default, skipping nested ${...} and $$ escapes. `scanned` counts
// the bytes looked at, over the whole expansion.
std::optional<std::size_t> find_closing_brace(std::string_view text, std::size_t from,
                                              std::size_t &scanned) {
  int depth = 0;
  for (std::size_t i = from; i < text.size(); ++i) {
    ++scanned;
    if (text[i] == '$' && i + 1 < text.size() && (text[i + 1] == '$' || text[i + 1] == '{')) {
      depth += text[i + 1] == '{';
      ++i;
    } else if (text[i] == '}') {
      if (depth == 0) return i;
      --depth;
    }
  }
  return std::nullopt;
}

// Parses the reference whose "${" starts at `start`; nullopt when it is not a well-formed
// reference (then the text is kept literally, as a shell would not expand it either).
std::optional<Reference> parse_reference(std::string_view text, std::size_t start,
                                         std::size_t &scanned) {
  std::size_t pos = start + 2;
  if (pos >= text.size() || !is_name_start(text[pos])) return std::nullopt;
  const std::size_t name_begin = pos;
  while (pos < text.size() && is_name_char(text[pos])) ++pos;
  Reference reference;
  reference.name = text.substr(name_begin, pos - name_begin);
  if (pos < text.size() && text[pos] == '}') {
    reference.end = pos + 1;
    return reference;
  }
  if (text.substr(pos, 2) != ":-") return std::nullopt;
  const auto close = find_closing_brace(text, pos + 2, scanned);
  if (!close) return std::nullopt;
  reference.fallback = text.substr(pos + 2, *close - pos - 2);
  reference.end = *close + 1;
  return reference;
}

// One expansion: the lookup, where unset names go, and how deep in defaults it is. Defaults
// nest (${A:-${B:-x}}), and a plan is untrusted text: without a depth limit a deep enough
// nesting overflows the stack (300 KB of `${A:-` did), and each level rescans the rest of the
// text, so the depth also bounds the work.
// `scanned` bounds the work: a default that never closes is scanned to the end of the text,
// once per "${NAME:-" before it, which 300 KB of unclosed ones made quadratic.
struct Expansion {
  const EnvLookup &env;
  std::vector<std::string> *unset;
  std::size_t budget;  // bytes find_closing_brace may look at, over the whole expansion
  std::size_t scanned = 0;
};

std::string expand_at(std::string_view text, Expansion &expansion, int depth);

std::string resolve(const Reference &reference, Expansion &expansion, int depth) {
  const std::optional<std::string> value = expansion.env(reference.name);
  // ":-" as in the shell: the default also replaces a variable that is set but empty.
  if (value && !value->empty()) return *value;
  if (reference.fallback) {
    if (depth >= kMaxExpansionDepth)
      throw ExpansionError(fmt::format(
          "${{...}} defaults nest deeper than {} levels (at ${{{}:-...}})", kMaxExpansionDepth,
          reference.name.substr(0, 64)));
    return expand_at(*reference.fallback, expansion, depth + 1);
  }
  if (!value && expansion.unset) expansion.unset->emplace_back(reference.name);
  return value.value_or("");
}

std::string expand_at(std::string_view text, Expansion &expansion, int depth) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const bool dollar_pair = text[i] == '$' && i + 1 < text.size();
    if (dollar_pair && text[i + 1] == '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (dollar_pair && text[i + 1] == '{') {
      const auto reference = parse_reference(text, i, expansion.scanned);
      if (expansion.scanned > expansion.budget)
        throw ExpansionError(fmt::format(
            "${{...}} defaults that do not close make this text too costly to expand (more than "
            "{} bytes scanned)",
            expansion.budget));
      if (reference) {
        // Values are inserted as they are, never expanded again.
        out += resolve(*reference, expansion, depth);
        i = reference->end;
        if (out.size() > kMaxExpandedBytes)
          throw ExpansionError(fmt::format("${{...}} expands to more than {} bytes",
                                           kMaxExpandedBytes));
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace

EnvLookup process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char *value = std::getenv(std::string(name).c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

std::string expand_env(std::string_view text, const EnvLookup &env,
                       std::vector<std::string> *unset) {
  Expansion expansion{env, unset, 32 * text.size() + 64 * 1024};
  return expand_at(text, expansion, 0);
}

EnvLookup no_env() {
  return [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
}

}  // namespace amplifier
