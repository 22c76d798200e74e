#include "redactor.hpp"

#include "amplifier/module_support/command_match.hpp"  // wildcard_match, for the allowlist

#include <boost/json/object.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <stdexcept>

namespace hooks_redaction {

namespace json = boost::json;

namespace {

using Match = boost::cmatch;

constexpr std::string_view kMarkerPrefix = "[REDACTED:";
constexpr std::size_t kShortestSecret = 6;  // no category matches fewer characters

std::string marker(std::string_view name) { return std::string(kMarkerPrefix) + std::string(name) + "]"; }

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::size_t count_digits(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }));
}

std::string digits_of(std::string_view text) {
  std::string out;
  for (char c : text)
    if (std::isdigit(static_cast<unsigned char>(c))) out += c;
  return out;
}

// The marker for a value named `name`: "[REDACTED:password]" for DB_PASSWORD=...
std::string marker_for_name(std::string_view name) {
  const std::string lower = lowercase(name);
  if (lower.find("pass") != std::string::npos || lower.find("pwd") != std::string::npos) return marker("password");
  if (lower.find("token") != std::string::npos || lower.find("auth") != std::string::npos ||
      lower.find("cookie") != std::string::npos)
    return marker("token");
  if (lower.find("key") != std::string::npos) return marker("api_key");
  return marker("secret");
}

bool luhn_valid(std::string_view digits) {
  int sum = 0;
  bool double_it = false;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    int d = *it - '0';
    if (double_it && (d *= 2) > 9) d -= 9;
    sum += d;
    double_it = !double_it;
  }
  return sum % 10 == 0;
}

// Issuer prefixes of the card networks in use (Visa, Mastercard, Amex, Discover, Diners, JCB):
// a random Luhn-valid number (1 in 10 is) rarely also starts like a card.
bool plausible_card(std::string_view digits) {
  if (digits.size() < 13 || digits.size() > 19) return false;
  const int two = (digits[0] - '0') * 10 + (digits[1] - '0');
  const bool issuer = digits[0] == '4' || two == 34 || two == 37 || (two >= 51 && two <= 55) ||
                      (two >= 22 && two <= 27) || digits.starts_with("6011") || two == 65 ||
                      two == 64 || two == 36 || two == 38 || two == 30 || two == 35;
  return issuer && luhn_valid(digits);
}

// The character before the match, or '\0' at the start of the text. Checked here instead of
// with a lookbehind or a leading \b, which would stop the matcher from skipping ahead to the
// characters a match can start with (a several-fold slowdown on long texts).
char char_before(const Match &m, std::string_view text) {
  return m[0].first > text.data() ? m[0].first[-1] : '\0';
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Keys whose values are never scanned: ids and times the kernel adds or links events with.
bool structural_key(std::string_view key) {
  static constexpr std::array<std::string_view, 6> keys = {
      "session_id", "parent_id", "timestamp", "tool_call_id", "parallel_group_id", "signature"};
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

struct Redactor::Rule {
  std::string category;
  boost::regex regex;
  std::vector<int> secret_groups{0};  // the first group that matched is replaced
  std::vector<std::string> hints;     // lowercase fragments; one must occur (empty: no screen)
  std::size_t min_digits = 0;
  // A further check of a match: its secret part and the whole text it was found in.
  std::function<bool(const Match &, std::string_view secret, std::string_view text)> accept;
  std::function<std::string(const Match &)> make_marker;               // default: the category

  bool worth_running(std::string_view lower_text, std::size_t digits) const {
    if (digits < min_digits) return false;
    if (hints.empty()) return true;
    return std::any_of(hints.begin(), hints.end(),
                       [&](const std::string &hint) { return lower_text.find(hint) != std::string_view::npos; });
  }
};

namespace {

using Rule = Redactor::Rule;

std::unique_ptr<Rule> rule(std::string category, const char *pattern, std::vector<std::string> hints = {},
                           std::size_t min_digits = 0) {
  auto r = std::make_unique<Rule>();
  r->category = std::move(category);
  r->regex = boost::regex(pattern, boost::regex::perl);
  r->hints = std::move(hints);
  r->min_digits = min_digits;
  return r;
}

// The built-in categories, in the order they are applied: multi-line and structured secrets
// first (a JWT inside "Bearer ..." is reported as a JWT), then keyed values, then personal data.
std::vector<std::unique_ptr<Rule>> catalogue() {
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(rule("private_key",
                       R"re(-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\z))re",
                       {"private key-----"}));
  rules.push_back(rule("jwt", R"re(\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,})re", {"eyj"}));

  auto api_key = rule("api_key",
                      R"re((?:sk-ant-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}|xox[abposr]-[A-Za-z0-9-]{10,}))re",
                      {"sk-", "aiza", "xox"}, 1);
  // Not inside a word ("task-..."); and real keys mix letters and digits, while
  // "sk-this-is-a-long-slug" does not.
  api_key->accept = [](const Match &m, std::string_view secret, std::string_view text) {
    return !is_word_char(char_before(m, text)) && count_digits(secret) >= 1;
  };
  rules.push_back(std::move(api_key));

  rules.push_back(rule("github_token", R"re(\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b)re",
                       {"gh", "github_pat_"}));
  rules.push_back(rule("aws_access_key", R"re(\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)re", {"akia", "asia"}));

  auto aws_secret = rule("aws_secret_key",
                         R"re((?i)(aws_?secret_?(?:access_?)?key|secret_?access_?key)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=]))re",
                         {"secret"});
  aws_secret->secret_groups = {3};
  rules.push_back(std::move(aws_secret));

  auto bearer = rule("bearer_token", R"re(\b([Bb]earer\s+)([A-Za-z0-9._~+/-]{16,}=*))re", {"bearer"});
  bearer->secret_groups = {2};
  rules.push_back(std::move(bearer));

  auto assignment = rule(
      "credential_assignment",
      R"re((?i)\b((?:[a-z0-9]+[_-])*(?:password|passwd|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|client[_-]?secret|private[_-]?key))(["']?\s*[:=]\s*)(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"',;&]{4,})))re",
      {"pass", "pwd", "secret", "key", "token"});
  assignment->secret_groups = {3, 4, 5};
  assignment->make_marker = [](const Match &m) { return marker_for_name(std::string_view(m[1].first, m[1].length())); };
  rules.push_back(std::move(assignment));

  rules.push_back(rule("email", R"re(\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b)re", {"@"}));

  auto card = rule("credit_card", R"re(\b(?:\d[ -]?){12,18}\d\b)re", {}, 13);
  card->accept = [](const Match &, std::string_view secret, std::string_view) {
    return plausible_card(digits_of(secret));
  };
  rules.push_back(std::move(card));

  auto ssn = rule("ssn", R"re(\b\d{3}-\d{2}-\d{4}\b)re", {"-"}, 9);
  // Numbers the SSA never issues: area 000, 666 or 9xx, group 00, serial 0000.
  ssn->accept = [](const Match &, std::string_view secret, std::string_view) {
    const std::string_view area = secret.substr(0, 3), group = secret.substr(4, 2), serial = secret.substr(7);
    return area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000";
  };
  rules.push_back(std::move(ssn));

  auto phone = rule("phone",
                    R"re((?:(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}|\+\d{1,3}(?:[\s.-]?\d{2,4}){2,5})(?![\w]))re",
                    {}, 8);
  phone->accept = [](const Match &m, std::string_view secret, std::string_view text) {
    const char before = char_before(m, text);
    if (is_word_char(before) || before == '+') return false;
    const std::size_t digits = count_digits(secret);
    return secret.starts_with('+') ? digits >= 8 && digits <= 15 : digits == 10 || digits == 11;
  };
  rules.push_back(std::move(phone));
  return rules;
}

}  // namespace

const std::vector<std::string> &secret_categories() {
  static const std::vector<std::string> names{"private_key",   "jwt",            "api_key",
                                              "github_token",  "aws_access_key", "aws_secret_key",
                                              "bearer_token",  "credential_assignment", "secret_field"};
  return names;
}

const std::vector<std::string> &pii_categories() {
  static const std::vector<std::string> names{"email", "credit_card", "ssn", "phone"};
  return names;
}

const std::vector<std::string> &category_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = secret_categories();
    all.insert(all.end(), pii_categories().begin(), pii_categories().end());
    return all;
  }();
  return names;
}

Redactor::Redactor(const RedactorSettings &settings) : allowlist_(settings.allowlist) {
  for (auto &r : catalogue())
    if (settings.enabled.contains(r->category)) rules_.push_back(std::move(r));
  redact_secret_fields_ = settings.enabled.contains("secret_field");
  for (const auto &extra : settings.extra_patterns) {
    auto r = std::make_unique<Rule>();
    r->category = extra.name;
    try {
      r->regex = boost::regex(extra.pattern, boost::regex::ECMAScript);
    } catch (const std::exception &e) {
      throw std::invalid_argument("extra pattern '" + extra.name + "' (" + extra.pattern +
                                  ") is not a valid regular expression: " + e.what());
    }
    rules_.push_back(std::move(r));
  }
}

Redactor::~Redactor() = default;

bool Redactor::allowed(std::string_view found) const {
  return std::any_of(allowlist_.begin(), allowlist_.end(), [&](const std::string &pattern) {
    return command_match::wildcard_match(pattern, found);
  });
}

namespace {

// Applies one rule to `text`; returns the new text when something was replaced.
std::optional<std::string> apply_rule(const Rule &rule, std::string_view text,
                                      const std::function<bool(std::string_view)> &allowed) {
  std::string out;
  bool changed = false;
  const char *const begin = text.data();
  const char *const end = begin + text.size();
  const char *from = begin;
  Match m;
  while (from < end) {
    const auto flags = from == begin ? boost::match_default : boost::match_default | boost::match_prev_avail;
    if (!boost::regex_search(from, end, m, rule.regex, flags)) break;
    const auto group = std::find_if(rule.secret_groups.begin(), rule.secret_groups.end(),
                                    [&](int g) { return m[g].matched && m[g].length() > 0; });
    const char *match_end = m[0].second == m[0].first ? m[0].second + 1 : m[0].second;
    if (group != rule.secret_groups.end()) {
      const std::string_view secret(m[*group].first, static_cast<std::size_t>(m[*group].length()));
      const bool keep = secret.starts_with(kMarkerPrefix) || (rule.accept && !rule.accept(m, secret, text)) ||
                        allowed(secret);
      if (!keep) {
        out.append(from, m[*group].first);
        out += rule.make_marker ? rule.make_marker(m) : marker(rule.category);
        out.append(m[*group].second, std::min(match_end, end));
        changed = true;
        from = std::min(match_end, end);
        continue;
      }
    }
    out.append(from, std::min(match_end, end));
    from = std::min(match_end, end);
  }
  if (!changed) return std::nullopt;
  out.append(from, end);
  return out;
}

}  // namespace

bool Redactor::redact_string(std::string &text) const {
  if (text.size() < kShortestSecret) return false;
  const std::size_t digits = count_digits(text);
  std::string lower = lowercase(text);
  bool changed = false;
  auto is_allowed = [this](std::string_view found) { return allowed(found); };
  for (const auto &r : rules_) {
    if (!r->worth_running(lower, digits)) continue;
    std::optional<std::string> replaced;
    try {
      replaced = apply_rule(*r, text, is_allowed);
    } catch (const std::exception &e) {  // the matcher's complexity limit: fail closed
      if (report_failure_) report_failure_("a string of " + std::to_string(text.size()) +
                                           " bytes could not be scanned for " + r->category + ": " + e.what());
      text = marker("unscanned");
      return true;
    }
    if (!replaced) continue;
    text = std::move(*replaced);
    lower = lowercase(text);
    changed = true;
  }
  return changed;
}

bool Redactor::secret_key(std::string_view key, std::string &found_marker) const {
  std::string name = lowercase(key);
  std::replace(name.begin(), name.end(), '-', '_');
  static constexpr std::array<std::string_view, 14> exact = {
      "authorization", "proxy_authorization", "x_api_key", "api_key", "apikey", "password", "passwd",
      "passphrase", "token", "secret", "cookie", "set_cookie", "private_key", "client_secret"};
  static constexpr std::array<std::string_view, 6> suffixes = {"_token", "_secret", "_password",
                                                               "_api_key", "_apikey", "_private_key"};
  const bool secret = std::find(exact.begin(), exact.end(), name) != exact.end() ||
                      std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view s) { return name.ends_with(s); });
  if (secret) found_marker = marker_for_name(name);
  return secret;
}

bool Redactor::redact_object(json::object &object) const {
  bool changed = false;
  for (auto &entry : object) {
    if (structural_key(entry.key())) continue;
    json::value &value = entry.value();
    std::string field_marker;
    if (redact_secret_fields_ && secret_key(entry.key(), field_marker)) {
      // Nothing secret in a null, a boolean, an empty string or an existing marker.
      const bool empty = value.is_null() || value.is_bool() ||
                         (value.is_string() && (value.get_string().empty() ||
                                                std::string_view(value.get_string()).starts_with(kMarkerPrefix)));
      if (!empty) {
        value = field_marker;
        changed = true;
      }
      continue;
    }
    changed |= redact(value);
  }
  return changed;
}

bool Redactor::redact(json::value &value) const {
  switch (value.kind()) {
    case json::kind::string: {
      if (value.get_string().size() < kShortestSecret) return false;
      std::string text(value.get_string());
      if (!redact_string(text)) return false;
      value = text;
      return true;
    }
    case json::kind::object: return redact_object(value.get_object());
    case json::kind::array: {
      bool changed = false;
      for (auto &item : value.get_array()) changed |= redact(item);
      return changed;
    }
    default: return false;
  }
}

}  // namespace hooks_redaction
