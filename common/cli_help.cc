#include "common/cli_help.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>

#include "common/error.h"
#include "common/terminal.h"
#include "common/text.h"

namespace ompscale {

namespace {

// Left column (names and option types), then the description wrapped under its own column.
class WrappingFormatter : public CLI::Formatter {
 public:
  explicit WrappingFormatter(std::size_t width) : width_(width) {}

  std::string make_option(const CLI::Option* opt, bool positional) const override {
    return columns(make_option_name(opt, positional) + make_option_opts(opt),
                   make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    return columns(sub->get_display_name(true), sub->get_description());
  }
  std::string make_description(const CLI::App* app) const override {
    return paragraphs(CLI::Formatter::make_description(app), "");
  }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    return paragraphs(CLI::Formatter::make_usage(app, std::move(name)), "  ");
  }
  std::string make_footer(const CLI::App* app) const override {
    return paragraphs(CLI::Formatter::make_footer(app), "");
  }

 private:
  // Each line of `text` wrapped on its own; continuation lines start with `indent`.
  std::string paragraphs(const std::string& text, std::string_view indent) const {
    if (text.empty()) return text;
    std::string out;
    std::vector<std::string> lines = split(text, '\n');
    if (lines.back().empty()) lines.pop_back();
    for (const std::string& line : lines)
      out += line.empty() ? "\n" : wrap(line, width_, "", indent);
    return out;
  }

  std::string columns(const std::string& left, const std::string& description) const {
    const std::size_t column = get_column_width();
    std::string first = "  " + left;
    if (description.empty()) return first + "\n";
    std::string out;
    if (display_width(first) + 1 > column) {
      out = first + "\n";
      first.clear();
    }
    first.resize(column, ' ');
    const std::string indent(column, ' ');
    for (const std::string& line : split(description, '\n')) {
      out += wrap(line, width_, first, indent);
      first = indent;
    }
    return out;
  }

  std::size_t width_;
};

// The long option names (without "--") of `app` and of the subcommands the command line chose.
void long_options(const CLI::App& app, std::vector<std::string>& names) {
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back(name);
  }
  for (const CLI::App* sub : app.get_subcommands()) long_options(*sub, names);
}

// "; did you mean --threads?" for the first "--word" of argv that names no option, when one is
// close; else "".
std::string option_suggestion(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> names;
  long_options(app, names);
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (!arg.starts_with("--") || arg.size() == 2) continue;
    const std::string word(arg.substr(2, arg.find('=') - 2));
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    const std::string nearest = nearest_word(word, names);
    return nearest.empty() ? "" : fmt::format("; did you mean --{}?", nearest);
  }
  return "";
}

}  // namespace

void wrap_help(CLI::App& app) {
  app.formatter(std::make_shared<WrappingFormatter>(help_width(STDOUT_FILENO)));
}

std::string help_command(std::string_view tool, const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == argv[i]) return fmt::format("{} {} --help", tool, sub->get_name());
    }
  }
  return fmt::format("{} --help", tool);
}

std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || argv[1][0] == '\0') return std::nullopt;
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == argv[1]) return std::nullopt;
    names.push_back(sub->get_name());
  }
  std::string message = fmt::format("unknown subcommand '{}'", argv[1]);
  if (const std::string nearest = nearest_word(argv[1], names); !nearest.empty())
    message += fmt::format("; did you mean {}?", nearest);
  return message;
}

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error, int argc,
                                char** argv, std::string_view help) {
  return fmt::format("{}{} (see {})", error.what(), option_suggestion(app, argc, argv), help);
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, std::string_view prefix,
                                      std::string_view help) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << prefix << ": " << parse_error_message(app, e, argc, argv, help) << "\n";
    return 2;
  }
  return std::nullopt;
}

int run_reporting_errors(std::string_view prefix, const std::function<int()>& command,
                         int failure) {
  try {
    return command();
  } catch (const UsageError& e) {
    std::cerr << prefix << ": " << e.what() << "\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << prefix << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prefix << ": error: " << e.what() << "\n";
    return failure;
  }
}

}  // namespace ompscale
