// The Redactor: each category finds what it should and leaves near misses alone; the JSON walk,
// secret-named keys, the allowlist, extra patterns and switched-off categories.
#include "redactor.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using namespace hooks_redaction;

namespace {

RedactorSettings all_categories() {
  RedactorSettings settings;
  settings.enabled.insert(category_names().begin(), category_names().end());
  return settings;
}

std::string redacted(const Redactor &redactor, std::string text) {
  redactor.redact_string(text);
  return text;
}

std::string redacted(std::string text) {
  static const Redactor redactor(all_categories());
  return redacted(redactor, std::move(text));
}

}  // namespace

TEST_CASE("API keys: OpenAI, Anthropic, Google and Slack forms") {
  CHECK(redacted("key sk-ant-api03-AbCdEf0123456789AbCdEf0123 end") == "key [REDACTED:api_key] end");
  CHECK(redacted("OPENAI=sk-proj-abc123def456ghi789jkl012") == "OPENAI=[REDACTED:api_key]");
  CHECK(redacted("AIzaSyA1234567890abcdefghijklmnopqrstuv") == "[REDACTED:api_key]");
  CHECK(redacted("xoxb-123456789012-abcdefghij") == "[REDACTED:api_key]");
  // Near misses: inside a word, or a long slug without a single digit.
  CHECK(redacted("task-abcdefghijklmnopqrstuvwxyz0123") == "task-abcdefghijklmnopqrstuvwxyz0123");
  CHECK(redacted("see sk-this-is-a-long-slug-without-digits") == "see sk-this-is-a-long-slug-without-digits");
}

TEST_CASE("AWS keys, GitHub tokens, bearer tokens and JWTs") {
  CHECK(redacted("id AKIAIOSFODNN7EXAMPLE here") == "id [REDACTED:aws_access_key] here");
  CHECK(redacted("AKIA1234") == "AKIA1234");
  CHECK(redacted("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY") ==
        "aws_secret_access_key = [REDACTED:aws_secret_key]");
  CHECK(redacted("token ghp_" + std::string(36, 'a') + " ok") == "token [REDACTED:github_token] ok");
  CHECK(redacted("github_pat_11ABCDEFG0123456789_abcdefghijklmnop") == "[REDACTED:github_token]");
  CHECK(redacted("Authorization: Bearer abcdef0123456789abcdef.xyz") ==
        "Authorization: Bearer [REDACTED:bearer_token]");
  CHECK(redacted("Bearer tokens are short-lived") == "Bearer tokens are short-lived");
  const std::string jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF123_-xyz";
  CHECK(redacted("jwt=" + jwt) == "jwt=[REDACTED:jwt]");
  CHECK(redacted("Bearer " + jwt) == "Bearer [REDACTED:jwt]");
}

TEST_CASE("private key blocks, whole or cut off") {
  const std::string block =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy\n-----END RSA PRIVATE KEY-----";
  CHECK(redacted("before\n" + block + "\nafter") == "before\n[REDACTED:private_key]\nafter");
  CHECK(redacted("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA...") == "[REDACTED:private_key]");
  CHECK(redacted("-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----") ==
        "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----");
}

TEST_CASE("credential assignments keep the name and lose the value") {
  CHECK(redacted("password=hunter2xyz") == "password=[REDACTED:password]");
  CHECK(redacted(R"({"api_key": "abcd1234efgh"})") == R"({"api_key": "[REDACTED:api_key]"})");
  CHECK(redacted("export DB_PASSWORD='s3cr3t!'") == "export DB_PASSWORD='[REDACTED:password]'");
  CHECK(redacted("client_secret: 9f8e7d6c5b4a") == "client_secret: [REDACTED:secret]");
  CHECK(redacted("url?access_token=abcdef123&x=1") == "url?access_token=[REDACTED:token]&x=1");
  // Not credentials: a short value, a plural name, prose.
  CHECK(redacted("token: str") == "token: str");
  CHECK(redacted("max_tokens=1000") == "max_tokens=1000");
  CHECK(redacted("the password is long") == "the password is long");
}

TEST_CASE("personal data: email, phone, SSN and card numbers with a Luhn check") {
  CHECK(redacted("write to jane.doe@example.org today") == "write to [REDACTED:email] today");
  CHECK(redacted("call (415) 555-0132 now") == "call [REDACTED:phone] now");
  CHECK(redacted("call 415-555-0132") == "call [REDACTED:phone]");
  CHECK(redacted("or +44 20 7946 0958.") == "or [REDACTED:phone].");
  CHECK(redacted("ssn 123-45-6789") == "ssn [REDACTED:ssn]");
  CHECK(redacted("card 4111 1111 1111 1111 exp") == "card [REDACTED:credit_card] exp");
  CHECK(redacted("card 5500-0000-0000-0004") == "card [REDACTED:credit_card]");
  // Near misses: dates, times, versions, ids, a failed Luhn check, an epoch in milliseconds.
  for (const char *kept : {"2026-11-22T01:02:03.456Z", "version 1.2.3", "id 1234567890", "000-12-3456",
                           "4111111111111112", "at 1763776923456", "offset +05:30", "10.0.0.1"}) {
    CHECK(redacted(kept) == kept);
  }
}

TEST_CASE("the JSON walk redacts strings everywhere and values under secret-named keys") {
  const Redactor redactor(all_categories());
  json::value event = json::parse(R"({
    "headers": {"Authorization": "Basic dXNlcjpwYXNz", "x-api-key": "k-123", "Accept": "json"},
    "password": 12345678, "refresh_token": "r1", "token": null, "secret": "",
    "max_tokens": 1000, "usage": {"input_tokens": 5},
    "messages": [{"content": "mail me at a.b@corp.io"}, "plain"],
    "session_id": "415-555-0132", "tool_call_id": "call_4111111111111111"
  })");
  CHECK(redactor.redact(event));
  const auto &o = event.as_object();
  CHECK(o.at("headers").at("Authorization") == "[REDACTED:token]");
  CHECK(o.at("headers").at("x-api-key") == "[REDACTED:api_key]");
  CHECK(o.at("headers").at("Accept") == "json");
  CHECK(o.at("password") == "[REDACTED:password]");
  CHECK(o.at("refresh_token") == "[REDACTED:token]");
  CHECK(o.at("token").is_null());
  CHECK(o.at("secret") == "");
  CHECK(o.at("max_tokens") == 1000);
  CHECK(o.at("usage").at("input_tokens") == 5);
  CHECK(o.at("messages").at(0).at("content") == "mail me at [REDACTED:email]");
  CHECK(o.at("messages").at(1) == "plain");
  CHECK(o.at("session_id") == "415-555-0132");  // structural keys are never scanned
  CHECK(o.at("tool_call_id") == "call_4111111111111111");

  json::value clean = json::parse(R"({"text": "nothing to see", "n": [1, 2, 3]})");
  const json::value copy = clean;
  CHECK(!redactor.redact(clean));
  CHECK(clean == copy);
}

TEST_CASE("allowlist, extra patterns and switched-off categories") {
  RedactorSettings settings = all_categories();
  settings.allowlist = {"*@example.com", "sk-test-*"};
  settings.extra_patterns = {{"internal_id", "ACME-[0-9]{6}"}};
  settings.enabled.erase("phone");
  const Redactor redactor(settings);
  CHECK(redacted(redactor, "bot@example.com and eve@evil.io") == "bot@example.com and [REDACTED:email]");
  CHECK(redacted(redactor, "sk-test-0123456789abcdefghij") == "sk-test-0123456789abcdefghij");
  CHECK(redacted(redactor, "ticket ACME-123456 done") == "ticket [REDACTED:internal_id] done");
  CHECK(redacted(redactor, "call 415-555-0132") == "call 415-555-0132");

  RedactorSettings broken = all_categories();
  broken.extra_patterns = {{"bad", "(unclosed"}};
  CHECK_THROWS_WITH_AS(Redactor{broken}, doctest::Contains("extra pattern 'bad' ((unclosed) is not a valid"),
                       std::invalid_argument);
}

TEST_CASE("a large string is scanned whole") {
  std::string big(2'000'000, 'x');
  for (std::size_t i = 80; i < big.size(); i += 81) big[i] = '\n';
  const std::string key = "sk-ant-api03-AbCdEf0123456789AbCdEf0123";
  big += " " + key;
  const std::string result = redacted(big);
  CHECK(result.size() == big.size() - key.size() + std::string("[REDACTED:api_key]").size());
  CHECK(result.ends_with(" [REDACTED:api_key]"));
}
