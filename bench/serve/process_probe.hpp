// What another process costs, read from /proc: its CPU time, threads and resident memory, and a
// sampler that keeps the highest thread count and RSS seen while a load runs.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace bench_serve {

struct ProcessStatus {
  int threads = 0;
  std::int64_t rss_kb = 0;    // VmRSS
  std::int64_t hwm_kb = 0;    // VmHWM: the peak RSS over the process's whole life
  std::int64_t open_fds = 0;  // entries in /proc/<pid>/fd (when counted)
};

ProcessStatus read_status(int pid, bool with_fds = true);

// utime + stime of `pid`, in seconds; 0 when it cannot be read.
double cpu_seconds(int pid);

// Samples `pid` every `period` until stopped: the most threads, open descriptors and the
// highest RSS seen.
class PeakSampler {
 public:
  PeakSampler(int pid, std::chrono::milliseconds period);
  ~PeakSampler();
  PeakSampler(const PeakSampler &) = delete;
  PeakSampler &operator=(const PeakSampler &) = delete;

  void stop();
  int peak_threads() const { return peak_threads_; }
  std::int64_t peak_rss_kb() const { return peak_rss_kb_; }
  std::int64_t peak_fds() const { return peak_fds_; }

 private:
  void run(int pid, std::chrono::milliseconds period);

  std::atomic<bool> stop_{false};
  std::atomic<int> peak_threads_{0};
  std::atomic<std::int64_t> peak_rss_kb_{0};
  std::atomic<std::int64_t> peak_fds_{0};
  std::thread thread_;
};

}  // namespace bench_serve
