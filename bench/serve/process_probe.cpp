#include "process_probe.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace bench_serve {
namespace {

namespace fs = std::filesystem;

std::int64_t kb_after(const std::string &line, std::size_t prefix) {
  return std::stoll(line.substr(prefix));
}

// The fields of /proc/<pid>/stat after the command name (field 3 onwards), or none.
std::vector<std::string> stat_fields(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return {};
  std::istringstream rest(text.substr(close + 2));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

double ticks_to_seconds(long long ticks) {
  return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::int64_t count_entries(const fs::path &dir) {
  std::error_code ec;
  std::int64_t count = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++count;
  return count;
}

}  // namespace

ProcessStatus read_status(int pid, bool with_fds) {
  ProcessStatus status;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Threads:", 0) == 0) status.threads = static_cast<int>(kb_after(line, 8));
    if (line.rfind("VmRSS:", 0) == 0) status.rss_kb = kb_after(line, 6);
    if (line.rfind("VmHWM:", 0) == 0) status.hwm_kb = kb_after(line, 6);
  }
  if (with_fds) status.open_fds = count_entries("/proc/" + std::to_string(pid) + "/fd");
  return status;
}

double cpu_seconds(int pid) {
  // After the name: state(3) ppid(4) ... utime(14) stime(15).
  const std::vector<std::string> fields = stat_fields(pid);
  if (fields.size() < 13) return 0;
  return ticks_to_seconds(std::stoll(fields[11]) + std::stoll(fields[12]));
}

PeakSampler::PeakSampler(int pid, std::chrono::milliseconds period)
    : thread_([this, pid, period] { run(pid, period); }) {}

PeakSampler::~PeakSampler() { stop(); }

void PeakSampler::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void PeakSampler::run(int pid, std::chrono::milliseconds period) {
  // Listing thousands of descriptors costs a millisecond or two of this process's time, which
  // the load shares a machine with: they are counted every tenth sample only.
  for (int sample = 0; !stop_; ++sample) {
    const ProcessStatus now = read_status(pid, /*with_fds=*/sample % 10 == 0);
    peak_threads_ = std::max(peak_threads_.load(), now.threads);
    peak_rss_kb_ = std::max(peak_rss_kb_.load(), now.rss_kb);
    peak_fds_ = std::max(peak_fds_.load(), now.open_fds);
    std::this_thread::sleep_for(period);
  }
}

}  // namespace bench_serve
