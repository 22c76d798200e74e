// The figures of one load run, from what the driver timed (and what the bench read about the
// serve process), and their table: one row per figure, one column per run.
#pragma once
#include "load_driver.hpp"

#include <string>
#include <utility>
#include <vector>

namespace bench_serve {

struct Spread {
  std::size_t count = 0;
  double p50 = 0, p99 = 0, max = 0;  // milliseconds
};

// The driver's view of a run.
struct LoadFigures {
  int completed = 0;
  int failed = 0;
  std::vector<std::string> first_errors;  // a few, for the reader
  Spread create;                          // POST /v1/sessions, per session
  Spread first_event;                     // prompt written -> first SSE event read
  Spread delta;                           // vendor sent a delta -> driver read it from serve
  Spread delta_steady;                    // the same without each session's first 10 deltas
  Spread delta_during_tools;              // ordinary sessions' deltas while a tool ran
  Spread largest_gap_during_tools;        // per ordinary session: its longest wait between two
                                          // deltas while a tool ran
  Spread tool_run;                        // tool:pre -> tool:post, as the stream showed it
  std::size_t deltas = 0;
  double turns_per_second = 0;
  double median_turn_ms = 0;  // prompt written -> turn:result, ordinary sessions
};

LoadFigures figures_of(const LoadRun &run);

// Rows of a table, filled one column (run) at a time.
class Table {
 public:
  void add_column(std::string heading);
  void set(const std::string &row, std::string value);  // in the last column
  std::string text() const;

 private:
  std::vector<std::string> headings_;
  std::vector<std::pair<std::string, std::vector<std::string>>> rows_;
};

std::string format_spread(const Spread &spread, const char *unit = "ms");

}  // namespace bench_serve
