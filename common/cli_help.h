#pragma once
// What the command-line tools share about their own command line (CLI11): help that fits the
// terminal, errors that point at the right --help, and a likely typo named.

#include <CLI/CLI.hpp>
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

}  // namespace ompscale
