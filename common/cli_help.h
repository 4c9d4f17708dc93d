#pragma once
// What the command-line tools share about their own command line (CLI11): help that fits the
// terminal, errors that point at the right --help, and a likely typo named.

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ompscale {

/// Help of `app` and of the subcommands added after this call wraps at help_width(stdout):
/// descriptions continue under their column instead of running off the terminal.
void wrap_help(CLI::App& app);

/// "ompbench import-epcc --help" when argv names a subcommand of `app`, else "ompbench --help".
std::string help_command(std::string_view tool, const CLI::App& app, int argc, char** argv);

/// When argv[1] is a word that names no subcommand of `app`: "unknown subcommand 'fti'; did you
/// mean fit?" (the nearest subcommand, when one is close), else nothing.
std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, char** argv);

/// The one-line cause of a command-line error: CLI11's message, the nearest option when argv holds
/// a mistyped one ("; did you mean --threads?"), and "(see HELP)".
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error, int argc,
                                char** argv, std::string_view help);

/// Parses argv[1..argc) into `app`: nullopt when the tool goes on; otherwise the exit status,
/// after printing the help or version (0) or "PREFIX: CAUSE (see HELP)" on stderr (2), HELP being
/// a help command such as help_command() gives.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, std::string_view prefix,
                                      std::string_view help);

/// The exit status of a tool's `command`, with what it throws reported on one line of stderr:
/// "PREFIX: CAUSE" and 2 for a UsageError or InputError (the command line or the input is at
/// fault); "PREFIX: error: CAUSE" and `failure` for any other exception.
int run_reporting_errors(std::string_view prefix, const std::function<int()>& command,
                         int failure = 1);

}  // namespace ompscale
