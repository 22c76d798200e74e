// How the host answers approval requests (amp_host_api.request_approval): by asking on the
// terminal, or, with nobody to ask, by denying.
#pragma once
#include "amplifier/coordinator.hpp"

#include <functional>

namespace amplifier::host {

// Whether there is a person to ask: standard input and standard error are terminals and the
// CI variable is not set.
bool can_ask_on_terminal();

// The handler to install with Coordinator::set_approval_handler. With a terminal it prints
// the request's prompt, tool and an argument preview on /dev/tty and reads
// [a]llow once / allow al[w]ays / [d]eny there, until the request's timeout_seconds pass (then
// the request's default, normally deny). "allow always" is remembered per tool for the
// process's life. Without a terminal: deny, reason "no terminal to ask". `cancelled` is
// polled while waiting: a cancelled turn stops asking and denies.
Coordinator::ApprovalHandler terminal_approval_handler(std::function<bool()> cancelled);

}  // namespace amplifier::host
