#include "load_report.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bench_serve {
namespace {

constexpr std::size_t kStartupDeltas = 10;

Spread spread_of(std::vector<double> values) {
  Spread s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
  };
  s.p50 = at(0.5);
  s.p99 = at(0.99);
  s.max = values.back();
  return s;
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// The union of the tool sessions' tool:pre -> tool:post intervals, sorted (steady ns).
std::vector<std::pair<std::int64_t, std::int64_t>> tool_windows(const LoadRun &run) {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans, merged;
  for (const auto &s : run.sessions)
    if (s.tool && s.tool_started != Clock::time_point{} && s.tool_ended != Clock::time_point{})
      spans.emplace_back(ns_of(s.tool_started), ns_of(s.tool_ended));
  std::sort(spans.begin(), spans.end());
  for (const auto &span : spans) {
    if (!merged.empty() && span.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, span.second);
    else
      merged.push_back(span);
  }
  return merged;
}

bool inside(const std::vector<std::pair<std::int64_t, std::int64_t>> &windows, std::int64_t t) {
  auto after = std::upper_bound(windows.begin(), windows.end(), std::make_pair(t, INT64_MAX));
  return after != windows.begin() && t <= std::prev(after)->second;
}

void add_delta_figures(const LoadRun &run, LoadFigures &f) {
  const auto windows = tool_windows(run);
  std::vector<double> all, steady, during, gaps;
  for (const auto &s : run.sessions) {
    double largest_gap = 0;
    bool gap_in_window = false;
    for (std::size_t k = 0; k < s.deltas.size(); ++k) {
      const DeltaSample &d = s.deltas[k];
      all.push_back(ms(d.latency_ns));
      if (k >= kStartupDeltas) steady.push_back(ms(d.latency_ns));
      if (s.tool || !inside(windows, d.arrived_ns)) continue;
      during.push_back(ms(d.latency_ns));
      if (k > 0) {
        largest_gap = std::max(largest_gap, ms(d.arrived_ns - s.deltas[k - 1].arrived_ns));
        gap_in_window = true;
      }
    }
    if (gap_in_window) gaps.push_back(largest_gap);
  }
  f.deltas = all.size();
  f.delta = spread_of(std::move(all));
  f.delta_steady = spread_of(std::move(steady));
  f.delta_during_tools = spread_of(std::move(during));
  f.largest_gap_during_tools = spread_of(std::move(gaps));
}

}  // namespace

LoadFigures figures_of(const LoadRun &run) {
  LoadFigures f;
  std::vector<double> create, first, tools, turns;
  for (const auto &s : run.sessions) {
    if (s.error.empty()) {
      ++f.completed;
    } else {
      ++f.failed;
      if (f.first_errors.size() < 5) f.first_errors.push_back(s.error);
    }
    if (s.create_ms > 0) create.push_back(s.create_ms);
    if (s.first_event != Clock::time_point{}) first.push_back(ms(s.first_event - s.posted));
    if (s.tool && s.tool_ended != Clock::time_point{})
      tools.push_back(ms(s.tool_ended - s.tool_started));
    if (!s.tool && s.error.empty()) turns.push_back(ms(s.finished - s.posted));
  }
  f.create = spread_of(std::move(create));
  f.first_event = spread_of(std::move(first));
  f.tool_run = spread_of(std::move(tools));
  f.median_turn_ms = spread_of(std::move(turns)).p50;
  f.turns_per_second = run.turns_wall_ms > 0 ? f.completed / (run.turns_wall_ms / 1000) : 0;
  add_delta_figures(run, f);
  return f;
}

std::string format_spread(const Spread &s, const char *unit) {
  if (s.count == 0) return "-";
  return fmt::format("{:.1f} / {:.1f} / {:.1f} {}", s.p50, s.p99, s.max, unit);
}

void Table::add_column(std::string heading) {
  headings_.push_back(std::move(heading));
  for (auto &row : rows_) row.second.resize(headings_.size());
}

void Table::set(const std::string &row, std::string value) {
  auto it = std::find_if(rows_.begin(), rows_.end(), [&](const auto &r) { return r.first == row; });
  if (it == rows_.end()) it = rows_.insert(rows_.end(), {row, {}});
  it->second.resize(headings_.size());
  it->second.back() = std::move(value);
}

std::string Table::text() const {
  std::size_t label_width = 0;
  std::vector<std::size_t> widths(headings_.size());
  for (std::size_t c = 0; c < headings_.size(); ++c) widths[c] = headings_[c].size();
  for (const auto &[label, values] : rows_) {
    label_width = std::max(label_width, label.size());
    for (std::size_t c = 0; c < values.size(); ++c)
      widths[c] = std::max(widths[c], values[c].size());
  }
  auto line = [&](const std::string &label, const std::vector<std::string> &values) {
    std::string out = fmt::format("{:<{}}", label, label_width);
    for (std::size_t c = 0; c < headings_.size(); ++c)
      out += fmt::format(" | {:<{}}", c < values.size() ? values[c] : "", widths[c]);
    return out + "\n";
  };
  std::string out = line("", headings_);
  for (const auto &[label, values] : rows_) out += line(label, values);
  return out;
}

}  // namespace bench_serve
