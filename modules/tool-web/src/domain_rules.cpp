#include "domain_rules.hpp"

#include <boost/algorithm/string/case_conv.hpp>

namespace tool_web {

namespace {

bool covers(std::string_view domain, std::string_view host) {
  if (host == domain) return true;
  return host.size() > domain.size() && host.ends_with(domain) &&
         host[host.size() - domain.size() - 1] == '.';
}

const std::string *first_covering(const std::vector<std::string> &domains, std::string_view host) {
  for (const auto &domain : domains)
    if (covers(domain, host)) return &domain;
  return nullptr;
}

std::string joined(const std::vector<std::string> &items) {
  std::string out;
  for (const auto &item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::vector<std::string> normalized(std::vector<std::string> entries) {
  for (auto &entry : entries) entry = normalize_domain(entry);
  return entries;
}

}  // namespace

std::string normalize_domain(std::string_view entry) {
  if (entry.starts_with("*.")) entry.remove_prefix(2);
  while (!entry.empty() && entry.front() == '.') entry.remove_prefix(1);
  while (!entry.empty() && entry.back() == '.') entry.remove_suffix(1);
  return boost::algorithm::to_lower_copy(std::string(entry));
}

DomainRules::DomainRules(std::vector<std::string> allowed, std::vector<std::string> denied)
    : allowed_(normalized(std::move(allowed))), denied_(normalized(std::move(denied))) {}

std::optional<std::string> DomainRules::refusal(std::string_view host) const {
  if (const std::string *denied = first_covering(denied_, host))
    return std::string(host) + " is denied by the denied_domains entry '" + *denied + "'";
  if (!allowed_.empty() && !first_covering(allowed_, host))
    return std::string(host) + " is not in allowed_domains (" + joined(allowed_) + ")";
  return std::nullopt;
}

}  // namespace tool_web
