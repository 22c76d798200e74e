#include "amplifier/cost/prices.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace amplifier::cost {
namespace json = boost::json;

extern const char *const kBuiltinPricesJson;  // builtin_prices.cpp, generated from prices.json

namespace {

std::optional<double> rate_at(const json::object &entry, std::string_view key,
                              const std::string &where) {
  const json::value *v = entry.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_number() || v->to_number<double>() < 0 || !std::isfinite(v->to_number<double>()))
    throw PriceError(where + "." + std::string(key) +
                     ": expected a price in USD per million tokens (a number, 0 or more)");
  return v->to_number<double>();
}

Rates rates_of(const json::object &entry, const std::string &where) {
  Rates rates;
  auto input = rate_at(entry, "input", where);
  auto output = rate_at(entry, "output", where);
  if (!input || !output)
    throw PriceError(where + ": 'input' and 'output' are required (USD per million tokens)");
  rates.input = *input;
  rates.output = *output;
  rates.cache_read = rate_at(entry, "cache_read", where);
  rates.cache_write = rate_at(entry, "cache_write", where);
  rates.cache_write_1h = rate_at(entry, "cache_write_1h", where);
  return rates;
}

constexpr std::string_view kRateKeys[] = {"input", "output", "cache_read", "cache_write",
                                          "cache_write_1h"};

void check_keys(const json::object &entry, const std::string &where, bool allow_long_context) {
  for (const auto &member : entry) {
    const std::string_view key = member.key();
    if (std::find(std::begin(kRateKeys), std::end(kRateKeys), key) != std::end(kRateKeys)) continue;
    if (key == "above_input_tokens" && !allow_long_context) continue;
    if (key == "long_context" && allow_long_context) continue;
    throw PriceError(where + ": unknown key '" + std::string(key) + "'");
  }
}

Price price_of(const json::value &value, const std::string &where) {
  const json::object *entry = value.if_object();
  if (!entry) throw PriceError(where + ": expected a map of prices (input, output, ...)");
  check_keys(*entry, where, true);
  Price price{rates_of(*entry, where), std::nullopt, {}};
  if (const json::value *tier = entry->if_contains("long_context")) {
    const std::string tier_where = where + ".long_context";
    const json::object *o = tier->if_object();
    if (!o) throw PriceError(tier_where + ": expected a map");
    check_keys(*o, tier_where, false);
    const json::value *above = o->if_contains("above_input_tokens");
    if (!above || !above->is_int64() || above->as_int64() <= 0)
      throw PriceError(tier_where + ".above_input_tokens: expected a positive whole number");
    price.above_input_tokens = above->as_int64();
    price.long_context = rates_of(*o, tier_where);
  }
  return price;
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "-20250929" or "-2025-11-13": a vendor's dated snapshot of a model.
bool is_date_suffix(std::string_view rest) {
  if (rest.size() == 9 && rest[0] == '-') return is_digits(rest.substr(1));
  return rest.size() == 11 && rest[0] == '-' && is_digits(rest.substr(1, 4)) && rest[5] == '-' &&
         is_digits(rest.substr(6, 2)) && rest[8] == '-' && is_digits(rest.substr(9, 2));
}

std::int64_t count_at(const json::object &usage, std::string_view key) {
  const json::value *v = usage.if_contains(key);
  return v ? bounded_count(*v) : 0;
}

double usd_for(const Rates &r, const Tokens &t) {
  const double write_5m = r.cache_write.value_or(r.input);
  const double write_1h = r.cache_write_1h.value_or(write_5m);
  const double per_million = static_cast<double>(t.input) * r.input +
                       static_cast<double>(t.output) * r.output +
                       static_cast<double>(t.cache_read) * r.cache_read.value_or(r.input) +
                       static_cast<double>(t.cache_write - t.cache_write_1h) * write_5m +
                       static_cast<double>(t.cache_write_1h) * write_1h;
  return per_million / 1e6;
}

}  // namespace

double rounded_usd(double usd) { return std::round(usd * 1e10) / 1e10; }

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return b < 0 ? INT64_MIN : INT64_MAX;
  return sum;
}

std::int64_t bounded_count(const json::value &v) {
  constexpr auto kMax = static_cast<std::int64_t>(kMaxFigure);
  if (v.is_int64()) return std::clamp<std::int64_t>(v.as_int64(), 0, kMax);
  if (v.is_uint64()) return v.as_uint64() > static_cast<std::uint64_t>(kMax) ? kMax
                                                                             : static_cast<std::int64_t>(v.as_uint64());
  if (v.is_double() && std::isfinite(v.as_double()) && v.as_double() > 0)
    return static_cast<std::int64_t>(std::min(v.as_double(), kMaxFigure));
  return 0;
}

void Tokens::add(const Tokens &more) {
  input = saturating_add(input, more.input);
  output = saturating_add(output, more.output);
  cache_read = saturating_add(cache_read, more.cache_read);
  cache_write = saturating_add(cache_write, more.cache_write);
  cache_write_1h = saturating_add(cache_write_1h, more.cache_write_1h);
  reasoning = saturating_add(reasoning, more.reasoning);
}

const PriceTable &PriceTable::builtin() {
  static const PriceTable table = parse(kBuiltinPricesJson);
  return table;
}

PriceTable PriceTable::parse(std::string_view json_text) {
  json::error_code ec;
  json::value doc = json::parse(json_text, ec);
  if (ec || !doc.is_object()) throw PriceError("the price table is not a JSON object");
  PriceTable table;
  if (const json::value *conventions = doc.as_object().if_contains("usage_conventions"))
    if (const json::value *list = conventions->as_object().if_contains("input_excludes_cache"))
      for (const auto &module : list->as_array()) table.excludes_cache_.emplace(module.as_string());
  const json::value *models = doc.as_object().if_contains("models");
  if (!models || !models->is_object()) throw PriceError("the price table has no 'models' map");
  return table.with(models->as_object());
}

PriceTable PriceTable::with(const json::object &overrides) const {
  PriceTable out = *this;
  for (const auto &member : overrides) {
    std::string key(member.key());
    if (key.empty() || key == "*") throw PriceError("pricing: a model name is required, got '" + key + "'");
    Price price = price_of(member.value(), "pricing." + key);
    if (key.back() == '*') {
      key.pop_back();
      out.prefixes_[key] = price;
    } else {
      out.exact_[key] = price;
    }
  }
  return out;
}

PriceTable PriceTable::behind(PriceTable first) const {
  PriceTable out = *this;
  out.first_ = std::make_shared<const PriceTable>(std::move(first));
  return out;
}

const Price *PriceTable::find(std::string_view model) const {
  if (first_)
    if (const Price *price = first_->find(model)) return price;
  return find_here(model);
}

const Price *PriceTable::find_here(std::string_view model) const {
  if (model.empty()) return nullptr;
  if (auto it = exact_.find(model); it != exact_.end()) return &it->second;
  // A dated snapshot or a tag of a priced model: the longest such base wins.
  const Price *best = nullptr;
  std::size_t best_size = 0;
  for (const auto &[base, price] : exact_) {
    if (base.size() >= model.size() || model.substr(0, base.size()) != base) continue;
    const std::string_view rest = model.substr(base.size());
    if ((is_date_suffix(rest) || rest.front() == ':') && base.size() > best_size) {
      best = &price;
      best_size = base.size();
    }
  }
  if (best) return best;
  for (const auto &[prefix, price] : prefixes_)
    if (model.substr(0, prefix.size()) == prefix && prefix.size() >= best_size) {
      best = &price;
      best_size = prefix.size();
    }
  return best;
}

bool PriceTable::input_excludes_cache(std::string_view provider_module) const {
  return excludes_cache_.count(provider_module) > 0;
}

Tokens tokens_of(const json::object &usage, bool input_excludes_cache) {
  Tokens t;
  t.cache_read = count_at(usage, "cache_read_tokens");
  t.cache_write = count_at(usage, "cache_write_tokens");
  t.cache_write_1h = std::min(t.cache_write, count_at(usage, "cache_write_1h_tokens"));
  const std::int64_t input = count_at(usage, "input_tokens");
  t.input = input_excludes_cache ? input : std::max<std::int64_t>(0, input - t.cache_read - t.cache_write);
  t.output = count_at(usage, "output_tokens");
  t.reasoning = count_at(usage, "reasoning_tokens");
  return t;
}

CallCost price_call(const PriceTable &table, std::string_view provider_module,
                    std::string_view model, const json::object &usage) {
  CallCost call{std::string(provider_module), std::string(model),
                tokens_of(usage, table.input_excludes_cache(provider_module)), std::nullopt};
  if (const Price *price = table.find(model)) {
    const bool long_prompt =
        price->above_input_tokens && call.tokens.prompt() > *price->above_input_tokens;
    call.usd = usd_for(long_prompt ? price->long_context : price->rates, call.tokens);
  }
  return call;
}

json::object to_json(const Tokens &t) {
  json::object out{{"input", t.input},
                   {"output", t.output},
                   {"cache_read", t.cache_read},
                   {"cache_write", t.cache_write}};
  if (t.cache_write_1h) out["cache_write_1h"] = t.cache_write_1h;
  if (t.reasoning) out["reasoning"] = t.reasoning;
  out["total"] = t.total();
  return out;
}

Tokens tokens_from_json(const json::value &value) {
  Tokens t;
  const json::object *o = value.if_object();
  if (!o) return t;
  t.input = count_at(*o, "input");
  t.output = count_at(*o, "output");
  t.cache_read = count_at(*o, "cache_read");
  t.cache_write = count_at(*o, "cache_write");
  t.cache_write_1h = count_at(*o, "cache_write_1h");
  t.reasoning = count_at(*o, "reasoning");
  return t;
}

json::object to_json(const CallCost &call) {
  json::object out{{"provider", call.provider},
                   {"model", call.model},
                   {"usd", call.usd ? json::value(rounded_usd(*call.usd)) : json::value()}};
  if (!call.usd) out["cost_unknown"] = true;
  out["tokens"] = to_json(call.tokens);
  return out;
}

}  // namespace amplifier::cost
