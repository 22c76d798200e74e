// One web_fetch call: GET the URL, follow redirects (each hop checked against the domain rules,
// and by the transport's address filter on the address it connects to), read at most
// max_body_bytes, and finish the call with the page's text or a failure the model can read.
//
// THREADS: every hop starts on the HTTP client's I/O thread (the first one posted there), so a
// hop's cancel handle is stored before any of its callbacks runs; all callbacks then run on
// that thread. cancel() may come from any thread. A complete page is converted to text on the
// host's worker pool, off the I/O thread.
#pragma once

#include "page_result.hpp"
#include "web_config.hpp"
#include "web_url.hpp"

#include "amplifier/provider/call_table.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier_sdk.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace tool_web {

class FetchCall final : public amplifier::provider::ProviderCall,
                        public std::enable_shared_from_this<FetchCall> {
 public:
  // `config` outlives the call (the module's call table waits for every call to end).
  FetchCall(amp::sdk::Host host, amp_call_id call, const WebConfig &config, WebUrl url,
            std::size_t max_chars);

  void start(transport::HttpClient &client, amplifier::provider::CallTable::DoneFn done);
  void cancel() override;

 private:
  // Why this side ended a response early (the transport then reports it as cancelled).
  enum class Stop { none, redirect, body_full, binary };

  template <class Fn>
  void guarded(Fn &&step) noexcept;
  void start_hop(const WebUrl &url);
  transport::HttpRequest request_for(const WebUrl &url) const;
  void on_head(const transport::ResponseHead &head);
  void on_body(std::string_view bytes);
  void on_complete(std::optional<KernelError> failure);
  void stop(Stop why);
  void follow_redirect();
  void finish_response();
  void convert_off_io_thread();
  static void convert_on_worker(void *user_data);
  void convert_page();
  std::string failure_message(const KernelError &failure) const;
  void finish(const std::string &result_json);
  void fail(const std::string &message);
  bool was_cancelled();
  void end_cancelled();

  amp::sdk::Host host_;
  const amp_call_id call_;
  const WebConfig &config_;
  const std::size_t max_chars_;
  transport::HttpClient *client_ = nullptr;
  amplifier::provider::CallTable::DoneFn done_;
  std::chrono::steady_clock::time_point deadline_;

  std::mutex mutex_;  // guards handle_ and cancelled_
  transport::CancelHandle handle_;
  bool cancelled_ = false;

  // I/O thread only, until the response is complete; then the converting worker's.
  WebUrl current_;
  FetchedPage page_;
  std::optional<std::string> location_;
  Stop stop_ = Stop::none;
};

}  // namespace tool_web
