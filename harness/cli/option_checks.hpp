#pragma once
// The checks every numeric and text option goes through, on the text as given and before CLI11
// converts it: a NaN, an infinity, a number out of range, a fraction where a count is meant, a
// negative number for an unsigned one ("-1" would wrap to 2^64-1) or an empty value is refused
// with the option's name, never turned into a gate that is silently off; and options that
// contradict each other are refused by both names, never one of them ignored.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <initializer_list>

namespace nb {

// A finite real in [low, high]; `low_open` excludes low itself ("must be positive").
CLI::Validator real_in(double low, double high, bool low_open = false);

// A whole number in [low, high], written in decimal digits (an optional leading '-').
CLI::Validator whole_in(std::int64_t low, std::int64_t high);

// Any unsigned 64-bit whole number: digits only, no sign.
CLI::Validator unsigned_whole();

// A value that is not empty (and not only blanks).
CLI::Validator not_empty();

// Two options of one command that contradict each other, and why.
struct OptionConflict {
  const char* first;
  const char* second;
  const char* why;
};

// Throws nb::UsageError "<first> and <second> cannot be given together: <why>" for the first of
// `conflicts` whose two options were both given to `command`: neither is silently dropped.
void refuse_conflicts(const CLI::App& command, std::initializer_list<OptionConflict> conflicts);

}  // namespace nb
