#include "cli/usage_errors.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

std::string command_name(const CLI::App& command) {
  std::vector<std::string> parts;
  for (const CLI::App* app = &command; app && app->get_parent(); app = app->get_parent()) {
    parts.insert(parts.begin(), app->get_name());
  }
  return util::join(parts, " ");
}

std::string help_hint(const CLI::App& command) {
  const auto name = command_name(command);
  return "run 'flashfit " + (name.empty() ? "" : name + " ") + "--help' for what it accepts";
}

std::vector<std::string> visible_subcommands(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

// Every option spelling the command accepts: its own and, by fallthrough, its parents'.
std::vector<std::string> option_spellings(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* app = &command; app; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      if (option->get_group().empty()) continue;
      for (const auto& name : option->get_lnames()) names.push_back("--" + name);
      for (const auto& name : option->get_snames()) names.push_back("-" + name);
    }
  }
  return names;
}

std::string lower_first(std::string text) {
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z')
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return text;
}

}  // namespace

std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates) {
  // Up to a third of the name (1 to 3 edits), or the start of it ("--arc" for "--archs").
  const auto near = util::near_names(
      typed, candidates,
      [&](std::string_view candidate, std::size_t distance) -> std::optional<std::size_t> {
        const auto limit = std::min<std::size_t>(3, std::max<std::size_t>(1, candidate.size() / 3));
        const bool prefix = typed.size() >= 2 && util::starts_with(candidate, typed);
        if (distance <= limit || prefix) return distance;
        return std::nullopt;
      });
  if (near.empty()) return std::nullopt;
  return candidates[near.front().index];
}

std::vector<CLI::App*> command_path(CLI::App& root, int argc, const char* const* argv) {
  std::vector<CLI::App*> path;
  CLI::App* current = &root;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.empty() || arg.front() == '-') continue;
    CLI::App* next = nullptr;
    for (CLI::App* sub : current->get_subcommands([](CLI::App*) { return true; })) {
      if (sub->get_name() == arg) next = sub;
    }
    if (!next) continue;
    path.push_back(next);
    current = next;
  }
  return path;
}

util::Error unexpected_arguments(const CLI::App& command, const std::vector<std::string>& extras) {
  const std::string where = command_name(command);
  const std::string& first = extras.front();
  util::Error error{util::ErrorKind::usage, "", where, help_hint(command)};
  if (first.size() > 1 && first.front() == '-') {
    // --gpus=8.0: the option is the part before '='.
    const std::string typed = first.substr(0, first.find('='));
    error.message = "unknown option '" + util::printable(typed) + "'";
    if (auto near = closest_name(typed, option_spellings(command))) {
      error.hint = "did you mean '" + *near + "'? " + error.hint;
    }
    return error;
  }
  const auto subcommands = visible_subcommands(command);
  if (!subcommands.empty()) {
    error.message = "unknown command '" + util::printable(where + " " + first) + "'";
    if (auto near = closest_name(first, subcommands)) {
      error.hint = "did you mean '" + where + " " + *near + "'?";
    } else {
      error.hint = "the commands are: " + util::join(subcommands, ", ");
    }
    return error;
  }
  error.message = "unexpected argument '" + util::printable(first) + "'";
  if (extras.size() > 1) error.message += " (and " + std::to_string(extras.size() - 1) + " more)";
  const auto options = command.get_options();
  const bool takes_spec =
      std::any_of(options.begin(), options.end(), [](const CLI::Option* option) {
        return option->get_positional() && option->get_type_name() == "SPEC";
      });
  if (takes_spec)
    error.hint = "quote a requirement with spaces or <>, e.g. 'flash-attn>=2.6'; " + error.hint;
  return error;
}

util::Error usage_error(const CLI::ParseError& parse_error, const CLI::App& command) {
  const std::string what = parse_error.what();
  util::Error error{util::ErrorKind::usage, lower_first(what), command_name(command),
                    help_hint(command)};
  const std::string kind = parse_error.get_name();  // a copy: get_name() returns by value
  if (kind == "RequiredError") {
    const std::string suffix = " is required";
    std::string missing =
        util::ends_with(what, suffix) ? what.substr(0, what.size() - suffix.size()) : what;
    if (missing == "A subcommand") {
      error.message = "missing command";
      error.hint = "one of: " + util::join(visible_subcommands(command), ", ");
      return error;
    }
    for (const CLI::Option* option : command.get_options()) {
      if (option->get_name(true) == missing || option->get_name() == missing) {
        const std::string value = option->get_type_name();
        error.message = "missing " + (option->nonpositional() ? missing
                                      : value.empty()         ? missing
                                                              : value);
        error.hint = option->get_description() + "; " + help_hint(command);
        break;
      }
    }
    return error;
  }
  if (kind == "ArgumentMismatch") {
    // CLI11: "--python: 1 required PYTHON missing" (no value), or "At Most 1" (given twice).
    const std::string option = what.substr(0, what.find(':'));
    if (what.find("missing") != std::string::npos) {
      error.message = "option '" + option + "' needs a value";
    } else {
      error.message = "option '" + option + "' takes one value and was given more";
      error.hint = "give it once (options that may repeat say so in --help); " + help_hint(command);
    }
  }
  return error;
}

}  // namespace flashfit::cli
