// allowed_domains / denied_domains: an entry covers the host itself and every subdomain
// ("example.com" covers "docs.example.com", not "badexample.com"); "*.example.com" and
// ".example.com" mean the same. Deny wins; an empty allow list allows every host not denied.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tool_web {

class DomainRules {
 public:
  DomainRules(std::vector<std::string> allowed, std::vector<std::string> denied);

  // Why `host` (lower case, as parse_web_url gives it) may not be fetched, or nullopt.
  std::optional<std::string> refusal(std::string_view host) const;

 private:
  std::vector<std::string> allowed_;
  std::vector<std::string> denied_;
};

// The entry normalised: lower case, no "*." or leading / trailing dots. Empty when nothing is
// left (the caller rejects it).
std::string normalize_domain(std::string_view entry);

}  // namespace tool_web
