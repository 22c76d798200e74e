#include "recipe_template.hpp"

#include "recipe.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace amplifier::host {
namespace json = boost::json;

namespace {

std::string_view without_blanks(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string defined_names(const TemplateScope &scope) {
  std::string names;
  auto add = [&](const std::string &name) { names += (names.empty() ? "" : ", ") + name; };
  if (scope.inputs)
    for (const auto &[name, value] : *scope.inputs) add("inputs." + name);
  if (scope.steps)
    for (const auto &[id, output] : *scope.steps)
      if (output) add("steps." + id + ".output");
  add("run.id");
  if (!scope.item_name.empty()) add(scope.item_name);
  return names;
}

std::string lookup(std::string_view name, const TemplateScope &scope) {
  const std::string key(without_blanks(name));
  if (!scope.item_name.empty() && key == scope.item_name) return scope.item_value;
  if (key == "run.id") return scope.run_id;
  if (key.starts_with("inputs.") && scope.inputs) {
    if (auto it = scope.inputs->find(key.substr(7)); it != scope.inputs->end()) return it->second;
  }
  if (key.starts_with("steps.") && key.ends_with(".output") && scope.steps && key.size() > 13) {
    const std::string id = key.substr(6, key.size() - 13);
    if (auto it = scope.steps->find(id); it != scope.steps->end()) {
      if (!it->second)
        throw RecipeError(fmt::format("{{{{{}}}}}: step {} was skipped (its condition was false), so it has no output",
                                      key, id));
      return *it->second;
    }
    throw RecipeError(fmt::format("{{{{{}}}}}: step {} has not run before this one (defined: {})", key,
                                  id, defined_names(scope)));
  }
  throw RecipeError(fmt::format("{{{{{}}}}} is not defined (defined: {})", key, defined_names(scope)));
}

// ---- conditions -------------------------------------------------------------------------

struct Token {
  enum Kind { value, reference, equal, not_equal, and_, or_, not_, open, close, end } kind;
  std::string text;  // a value's text, a reference's name
};

class ConditionParser {
 public:
  ConditionParser(std::string_view text, const TemplateScope &scope) : text_(text), scope_(scope) {
    tokenize();
  }

  bool parse() {
    const bool result = parse_or(true);
    if (tokens_[at_].kind != Token::end) fail("unexpected text after the condition");
    return result;
  }

 private:
  [[noreturn]] void fail(const std::string &problem) const {
    throw RecipeError(fmt::format("condition \"{}\": {}", std::string(text_), problem));
  }

  void tokenize() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (text_.compare(i, 2, "{{") == 0) {
        const std::size_t close = text_.find("}}", i + 2);
        if (close == std::string_view::npos) fail("a {{ without }}");
        tokens_.push_back({Token::reference, std::string(text_.substr(i + 2, close - i - 2))});
        i = close + 2;
      } else if (c == '\'' || c == '"') {
        const std::size_t close = text_.find(c, i + 1);
        if (close == std::string_view::npos) fail("a quote that is not closed");
        std::string literal(text_.substr(i + 1, close - i - 1));
        if (literal.find("{{") != std::string::npos)
          fail("a {{value}} inside quotes is compared as the text '{{...}}': write it unquoted");
        tokens_.push_back({Token::value, std::move(literal)});
        i = close + 1;
      } else if (text_.compare(i, 2, "==") == 0) {
        tokens_.push_back({Token::equal, {}});
        i += 2;
      } else if (text_.compare(i, 2, "!=") == 0) {
        tokens_.push_back({Token::not_equal, {}});
        i += 2;
      } else if (c == '(' || c == ')') {
        tokens_.push_back({c == '(' ? Token::open : Token::close, {}});
        ++i;
      } else {
        std::size_t end = i;
        while (end < text_.size() && !std::isspace(static_cast<unsigned char>(text_[end])) &&
               text_[end] != '(' && text_[end] != ')' && text_.compare(end, 2, "==") != 0 &&
               text_.compare(end, 2, "!=") != 0 && text_[end] != '\'' && text_[end] != '"')
          ++end;
        const std::string word(text_.substr(i, end - i));
        if (word.find("{{") != std::string::npos || word.find("}}") != std::string::npos)
          fail("'" + word + "' mixes a {{value}} with other text: leave a space around it");
        if (word == "and") tokens_.push_back({Token::and_, {}});
        else if (word == "or") tokens_.push_back({Token::or_, {}});
        else if (word == "not") tokens_.push_back({Token::not_, {}});
        else tokens_.push_back({Token::value, word});
        i = end;
      }
    }
    tokens_.push_back({Token::end, {}});
  }

  static bool truthy(std::string_view value) {
    std::string lower(without_blanks(value));
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return !(lower.empty() || lower == "false" || lower == "no" || lower == "none" ||
             lower == "null" || lower == "0");
  }

  // Each parse_* reads its part of the condition whatever `evaluate` says (so a syntax error
  // anywhere is found), and looks values up only when `evaluate`: `and` and `or` do not look at
  // what their left side already decided, so a step that was skipped may be named there.
  bool parse_or(bool evaluate) {
    bool result = parse_and(evaluate);
    while (tokens_[at_].kind == Token::or_) {
      ++at_;
      const bool right = parse_and(evaluate && !result);
      result = result || right;
    }
    return result;
  }
  bool parse_and(bool evaluate) {
    bool result = parse_not(evaluate);
    while (tokens_[at_].kind == Token::and_) {
      ++at_;
      const bool right = parse_not(evaluate && result);
      result = result && right;
    }
    return result;
  }
  bool parse_not(bool evaluate) {
    if (tokens_[at_].kind == Token::not_) {
      ++at_;
      return !parse_not(evaluate);
    }
    return parse_comparison(evaluate);
  }
  std::string operand(bool evaluate) {
    const Token &token = tokens_[at_];
    if (token.kind != Token::value && token.kind != Token::reference) fail("expected a value");
    ++at_;
    if (token.kind == Token::value || !evaluate) return token.text;
    return lookup(token.text, scope_);
  }
  bool parse_comparison(bool evaluate) {
    if (tokens_[at_].kind == Token::open) {
      ++at_;
      const bool result = parse_or(evaluate);
      if (tokens_[at_].kind != Token::close) fail("a ( without )");
      ++at_;
      return result;
    }
    const std::string left = operand(evaluate);
    const Token::Kind op = tokens_[at_].kind;
    if (op != Token::equal && op != Token::not_equal) return evaluate && truthy(left);
    ++at_;
    if (tokens_[at_].kind != Token::value && tokens_[at_].kind != Token::reference)
      fail("expected a value after the comparison");
    const std::string right = operand(evaluate);
    if (!evaluate) return false;
    const bool same = without_blanks(left) == without_blanks(right);
    return op == Token::equal ? same : !same;
  }

  std::string_view text_;
  const TemplateScope &scope_;
  std::vector<Token> tokens_;
  std::size_t at_ = 0;
};

}  // namespace

std::string shell_quote(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') quoted += "'\\''";
    else quoted.push_back(c);
  }
  return quoted + "'";
}

std::string render_template(std::string_view text, const TemplateScope &scope, Quoting quoting) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t open = text.find("{{", at);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos)
      throw RecipeError(fmt::format("a {{{{ without }}}} in \"{}\"", std::string(text.substr(open, 60))));
    out += text.substr(at, open - at);
    const std::string value = lookup(text.substr(open + 2, close - open - 2), scope);
    out += quoting == Quoting::shell ? shell_quote(value) : value;
    at = close + 2;
  }
  out += text.substr(at);
  return out;
}

ShellCommand render_command(std::string_view text, const TemplateScope &scope) {
  constexpr std::size_t kMaxValueBytes = (128 << 10) - 64;  // Linux: MAX_ARG_STRLEN per string
  ShellCommand command;
  enum class Quote { none, single, double_ } quote = Quote::none;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "{{") == 0) {
      const std::size_t close = text.find("}}", i + 2);
      if (close == std::string_view::npos)
        throw RecipeError(fmt::format("a {{{{ without }}}} in the command \"{}\"", std::string(text.substr(i, 60))));
      const std::string name(without_blanks(text.substr(i + 2, close - i - 2)));
      if (quote == Quote::single)
        throw RecipeError(fmt::format("{{{{{}}}}} is inside single quotes in the command, where the shell "
                                      "cannot substitute it: write it outside them (it is quoted for you)",
                                      name));
      std::string value = lookup(name, scope);
      if (value.find('\0') != std::string::npos)
        throw RecipeError(fmt::format("the value of {{{{{}}}}} has a NUL byte, which a command cannot be given", name));
      if (value.size() > kMaxValueBytes)
        throw RecipeError(fmt::format("the value of {{{{{}}}}} is {} bytes; a command is given at most {} "
                                      "per value (through its environment): have the step write a file "
                                      "and read that instead",
                                      name, value.size(), kMaxValueBytes));
      const std::string variable = fmt::format("AMP_RECIPE_VALUE_{}", command.variables.size() + 1);
      command.variables.emplace_back(variable, std::move(value));
      command.text += quote == Quote::double_ ? "${" + variable + "}" : "\"${" + variable + "}\"";
      i = close + 2;
      continue;
    }
    const char c = text[i];
    command.text.push_back(c);
    ++i;
    if (c == '\\' && quote != Quote::single && i < text.size()) {
      command.text.push_back(text[i++]);  // an escaped character quotes nothing
    } else if (c == '\'' && quote != Quote::double_) {
      quote = quote == Quote::single ? Quote::none : Quote::single;
    } else if (c == '"' && quote != Quote::single) {
      quote = quote == Quote::double_ ? Quote::none : Quote::double_;
    }
  }
  return command;
}

bool evaluate_condition(std::string_view condition, const TemplateScope &scope) {
  return ConditionParser(condition, scope).parse();
}

std::vector<std::string> foreach_items(std::string_view rendered) {
  std::vector<std::string> items;
  const std::string_view text = without_blanks(rendered);
  if (text.starts_with('[')) {
    json::error_code ec;
    const json::value parsed = json::parse(text, ec);
    if (!ec && parsed.is_array()) {
      for (const auto &item : parsed.as_array())
        items.push_back(item.is_string() ? std::string(item.as_string()) : json::serialize(item));
      return items;
    }
  }
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = without_blanks(text.substr(at, end - at));
    if (!line.empty()) items.emplace_back(line);
    at = end + 1;
  }
  return items;
}

}  // namespace amplifier::host
