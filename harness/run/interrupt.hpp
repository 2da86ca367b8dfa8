#pragma once
// SIGINT and SIGTERM during a run: the first one only sets a flag, which the runner reads between
// samples, trials and cases, so that it stops at the next such point and writes a partial report
// (exit 130); a second one ends the process at once (_exit(130)).
#include <vector>

namespace nb {

// Installs the handlers (idempotent). Commands that write a partial report call it.
void install_interrupt_handlers();

bool interrupt_requested();
int interrupt_signal();  // the first signal received, 0 when none

// Process groups that get the second signal too before this process exits (the workers of
// run --devices, each in a group of its own). At most 64; set before the workers can be signalled.
void forward_second_signal_to(const std::vector<int>& process_groups);

// For tests and for a parent that forwards the request: as if a signal had arrived (no second-signal exit).
void request_interrupt(int signal);
void clear_interrupt();

// Thrown by the runner's phases when they stop at an interrupt; the runner writes what it has.
struct RunInterrupted {};

}  // namespace nb
