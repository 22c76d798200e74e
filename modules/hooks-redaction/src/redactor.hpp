// Finding secrets and personal data in event payloads and replacing them with markers such as
// "[REDACTED:api_key]".
//
// Categories (each can be switched off; "secrets" and "pii" switch a whole group):
//   secrets: api_key (sk-..., sk-ant-..., AIza..., xox?-...), aws_access_key (AKIA/ASIA...),
//            aws_secret_key (40 characters after an aws_secret_access_key-like name),
//            github_token (ghp_/gho_/ghu_/ghs_/ghr_..., github_pat_...), bearer_token
//            ("Bearer <token>"; the word stays), jwt (eyJ... three base64url segments),
//            private_key (a PEM "-----BEGIN ... PRIVATE KEY-----" block, to its END line or
//            to the end of a cut text), credential_assignment (password=..., api_key: "...",
//            DB_PASSWORD=...; the name stays, the value goes), secret_field (the value of a
//            JSON key named like a secret: authorization, x-api-key, api_key, password, token,
//            cookie, *_token, *_secret, *_password, ...);
//   pii:     email, phone (North American with separators, or international with a leading
//            '+' and 8 to 15 digits), ssn (US, ddd-dd-dddd, impossible ranges excluded),
//            credit_card (13 to 19 digits, optionally grouped by spaces or dashes, with a
//            known issuer prefix and a valid Luhn check digit).
// Plus `extra_patterns` (ECMAScript regular expressions) marked with their own names.
//
// Speed: every expression is compiled once. Each string is first screened by cheap tests
// (its length, the literal fragments a category needs, how many digits it has), so most
// strings run no expression at all. Values of structural keys (session_id, parent_id,
// timestamp, tool_call_id, parallel_group_id, signature) are left alone: they are ids and
// times, never secrets, and their digits would only feed false alarms.
//
// THREADS: immutable after construction; redact() may run concurrently.
#pragma once
#include <boost/json/value.hpp>

#include <boost/regex.hpp>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hooks_redaction {

// Every category name, in the order the redactor applies them.
const std::vector<std::string> &category_names();
// The categories of each group ("secrets", "pii").
const std::vector<std::string> &secret_categories();
const std::vector<std::string> &pii_categories();

struct ExtraPattern {
  std::string name;     // the marker's name: "[REDACTED:<name>]"
  std::string pattern;  // ECMAScript
};

struct RedactorSettings {
  std::set<std::string> enabled;          // category names; all of them by default
  std::vector<std::string> allowlist;     // globs: found text matching one is kept
  std::vector<ExtraPattern> extra_patterns;
};

class Redactor {
 public:
  // Throws std::invalid_argument naming an extra pattern that does not compile.
  explicit Redactor(const RedactorSettings &settings);
  ~Redactor();

  // Redacts every string in `value` (recursively) and every value under a secret-named key.
  // Returns true when anything changed.
  bool redact(boost::json::value &value) const;

  // Redacts one string; returns true when it changed.
  bool redact_string(std::string &text) const;

  // Called once per failure of the matcher (a complexity limit on a pathological string), which
  // then replaces the whole string by "[REDACTED:unscanned]": failing closed.
  void on_scan_failure(std::function<void(const std::string &)> report) { report_failure_ = std::move(report); }

  struct Rule;  // one compiled category; opaque

 private:
  bool redact_object(boost::json::object &object) const;
  bool secret_key(std::string_view key, std::string &marker) const;
  bool allowed(std::string_view found) const;

  std::vector<std::unique_ptr<Rule>> rules_;
  bool redact_secret_fields_ = false;
  std::vector<std::string> allowlist_;
  std::function<void(const std::string &)> report_failure_;
};

}  // namespace hooks_redaction
