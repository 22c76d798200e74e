// What a provider call costs: the price table (prices.json, compiled in, with the plan's and
// the operator's overrides) and the pricing of one call's usage report.
//
// Trust: prices come from the shipped table, the plan (session.pricing) and the operator's
// settings; the operator's win (a downloaded plan could price a model at 0 to slip past a
// budget, so the host lays the operator's entries over the plan's). A model never sets them.
#pragma once
#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::cost {

// A bad price entry: the message names the entry and what is wrong with it.
class PriceError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// USD per million tokens of each kind. A cache price that is absent is charged as `input`
// (and a 1-hour write as `cache_write`): an unknown discount is never assumed.
struct Rates {
  double input = 0;
  double output = 0;
  std::optional<double> cache_read;
  std::optional<double> cache_write;     // Anthropic's 5-minute write
  std::optional<double> cache_write_1h;  // Anthropic's 1-hour write
};

struct Price {
  Rates rates;
  // Rates for a prompt above `above_input_tokens` (Gemini 2.5 Pro, Claude's 1M window).
  std::optional<std::int64_t> above_input_tokens;
  Rates long_context;
};

// Figures read from JSON (a usage report, a stored transcript, a child's report) are clamped
// to 0 .. 2^53 (bounded_count) and added with saturation: no value, however written, makes a
// total go down or wrap around.
std::int64_t saturating_add(std::int64_t a, std::int64_t b);

// The tokens of one call, each kind apart. `input` is the uncached input only, whatever the
// vendor's convention (see PriceTable::input_excludes_cache).
struct Tokens {
  std::int64_t input = 0;
  std::int64_t output = 0;  // reasoning included: vendors bill it as output
  std::int64_t cache_read = 0;
  std::int64_t cache_write = 0;     // all cache writes (5-minute and 1-hour)
  std::int64_t cache_write_1h = 0;  // of which 1-hour writes
  std::int64_t reasoning = 0;       // of `output`, when the vendor says
  std::int64_t total() const { return saturating_add(prompt(), output); }
  std::int64_t prompt() const { return saturating_add(saturating_add(input, cache_read), cache_write); }
  void add(const Tokens &more);
};

class PriceTable {
 public:
  // The shipped table (prices.json). Parsed once; safe from any thread.
  static const PriceTable &builtin();
  // Parses a table in prices.json's shape. Throws PriceError.
  static PriceTable parse(std::string_view json_text);

  // This table with `overrides` laid over it: {"MODEL": {input, output, cache_read?,
  // cache_write?, cache_write_1h?, long_context?}, ...}; a key ending in '*' prices every model
  // starting with what comes before it. An entry replaces the one of the same key whole.
  // Throws PriceError naming the entry.
  PriceTable with(const boost::json::object &overrides) const;

  // The price of `model`: its own entry; else the entry it extends with a date suffix
  // ("claude-sonnet-4-5-20250929", "gpt-5.1-2025-11-13") or a tag ("qwen3:8b"); else the
  // longest '*' prefix entry. Null when none: the cost is then unknown.
  const Price *find(std::string_view model) const;

  // This table behind `first`: a model `first` prices (by any of find's rules) takes that
  // price, however much more specific an entry here is. For the operator's prices over a
  // plan's: a plan's "claude-sonnet-4-5-20250929" at 0 does not beat the operator's
  // "claude-sonnet-4-5".
  PriceTable behind(PriceTable first) const;

  // True when `provider_module` reports input_tokens without the cached tokens.
  bool input_excludes_cache(std::string_view provider_module) const;

 private:
  const Price *find_here(std::string_view model) const;

  std::shared_ptr<const PriceTable> first_;
  std::map<std::string, Price, std::less<>> exact_;
  std::map<std::string, Price, std::less<>> prefixes_;  // keys without their '*'
  std::set<std::string, std::less<>> excludes_cache_;
};

// A usage report (amplifier::Usage as JSON: input_tokens, output_tokens, cache_read_tokens,
// cache_write_tokens, reasoning_tokens, cache_write_1h_tokens) split into kinds.
Tokens tokens_of(const boost::json::object &usage, bool input_excludes_cache);

// One provider call, priced.
struct CallCost {
  std::string provider;  // the provider module that answered
  std::string model;     // the model that answered ("" when it did not say)
  Tokens tokens;
  std::optional<double> usd;  // nullopt: no price is known for the model
};

CallCost price_call(const PriceTable &table, std::string_view provider_module,
                    std::string_view model, const boost::json::object &usage);

// {"provider", "model", "usd": number|null, "cost_unknown"?: true, "tokens": {...}}.
boost::json::object to_json(const CallCost &call);
// `usd` to 10 decimal places: sums of binary fractions (0.24000000000000002) read as written.
double rounded_usd(double usd);
boost::json::object to_json(const Tokens &tokens);
Tokens tokens_from_json(const boost::json::value &value);

// A token count or figure as read from JSON: 0 for anything negative or not a number, at most
// 2^53 (beyond which no real count goes, and doubles stop counting in ones).
inline constexpr double kMaxFigure = 9007199254740992.0;
std::int64_t bounded_count(const boost::json::value &value);

}  // namespace amplifier::cost
