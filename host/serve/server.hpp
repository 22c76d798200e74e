// `amplifier serve` as a library: what the command line parses (ServeOptions) and the server
// it runs. No CLI11 here: host/src/cmd_serve.cpp is the command.
#pragma once
#include "api.hpp"
#include "http_server.hpp"

#include <string>

namespace amplifier::host::serve {

struct ServeOptions {
  HttpServerOptions http;
  std::string plan_file;
  std::string plans_dir;
  std::string root;
  int shutdown_grace_seconds = 30;
  int idle_unload_seconds = 300;
  int session_expiry_seconds = 24 * 3600;
  ApiLimits limits;
  bool print_routes = false;
  bool no_auth = false;  // --no-auth: loopback only
  bool allow_inline_plans = false;
};

// Runs a server until SIGTERM or SIGINT, then drains it (running turns get
// shutdown_grace_seconds, every session is ended). Returns the exit code; throws for options
// that cannot work (--no-auth on a non-loopback address) and a default plan that does not load.
int run_server(ServeOptions options);

}  // namespace amplifier::host::serve
