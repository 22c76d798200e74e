// ${VAR} / ${VAR:-default} expansion for mount plans.
#include "amplifier/mount_plan.hpp"

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

// Finds the brace closing a default, skipping nested ${...} and $$ escapes.
std::optional<std::size_t> find_closing_brace(std::string_view text, std::size_t from) {
  int depth = 0;
  for (std::size_t i = from; i < text.size(); ++i) {
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
std::optional<Reference> parse_reference(std::string_view text, std::size_t start) {
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
  const auto close = find_closing_brace(text, pos + 2);
  if (!close) return std::nullopt;
  reference.fallback = text.substr(pos + 2, *close - pos - 2);
  reference.end = *close + 1;
  return reference;
}

std::string resolve(const Reference &reference, const EnvLookup &env, std::vector<std::string> *unset) {
  const std::optional<std::string> value = env(reference.name);
  // ":-" as in the shell: the default also replaces a variable that is set but empty.
  if (value && !value->empty()) return *value;
  if (reference.fallback) return expand_env(*reference.fallback, env, unset);
  if (!value && unset) unset->emplace_back(reference.name);
  return value.value_or("");
}

}  // namespace

EnvLookup process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char *value = std::getenv(std::string(name).c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

std::string expand_env(std::string_view text, const EnvLookup &env, std::vector<std::string> *unset) {
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
      if (const auto reference = parse_reference(text, i)) {
        out += resolve(*reference, env, unset);  // values are inserted as-is, never re-expanded
        i = reference->end;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace amplifier
