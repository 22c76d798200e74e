#include "probe_kernel.hpp"

#include "amplifier/log.hpp"
#include "module_proxy.hpp"

namespace amplifier::host::validate {

struct LogRecorder::Lines {
  mutable std::mutex mutex;
  std::vector<std::string> lines;
};

LogRecorder::LogRecorder() : lines_(std::make_shared<Lines>()) {
  set_log_level(LogLevel::Info);
  // The sink holds the lines itself, so a module thread logging late never reaches a freed
  // recorder.
  set_log_sink([lines = lines_](LogLevel, std::string_view component, std::string_view message) {
    std::lock_guard lock(lines->mutex);
    lines->lines.push_back(std::string(component) + ": " + std::string(message));
  });
}

LogRecorder::~LogRecorder() { set_log_sink({}); }

std::vector<std::string> LogRecorder::matching(std::string_view needle) const {
  std::lock_guard lock(lines_->mutex);
  std::vector<std::string> out;
  for (const auto &line : lines_->lines)
    if (line.find(needle) != std::string::npos) out.push_back(line);
  return out;
}

TextWriter::TextWriter()
    : amp_writer{this, [](amp_writer *w, const char *d, size_t n) {
                   static_cast<TextWriter *>(w->host_data)->text.append(d, n);
                 }} {}

std::string mount_point_of(amp_module_kind kind) {
  switch (kind) {
    case AMP_KIND_PROVIDER:
      return "providers";
    case AMP_KIND_TOOL:
      return "tools";
    case AMP_KIND_ORCHESTRATOR:
      return "orchestrator";
    case AMP_KIND_CONTEXT:
      return "context";
    default:
      return "hooks";
  }
}

ProbeKernel::ProbeKernel()
    : coordinator_(std::make_unique<Coordinator>(hooks_, cancellation_, "validate-session", "")) {}

ProbeKernel::~ProbeKernel() { coordinator_.reset(); }

MountedModule &ProbeKernel::mount_under_test(const std::filesystem::path &file,
                                             boost::json::object config) {
  auto module = filtered_module(loader_.load_file(file));
  std::string mount_name(module->id());
  return coordinator_->mount(mount_point_of(module->descriptor->kind), std::move(mount_name),
                             module, std::move(config));
}

MountedModule &ProbeKernel::mount_helper(std::string_view id, const std::string &mount_point,
                                         boost::json::object config) {
  return coordinator_->mount(mount_point, std::string(id), loader_.load(id), std::move(config));
}

std::vector<std::string> ProbeKernel::protocol_violations() const {
  return log_.matching("protocol violation");
}

std::vector<std::string> ProbeKernel::log_lines_matching(std::string_view needle) const {
  return log_.matching(needle);
}

}  // namespace amplifier::host::validate
