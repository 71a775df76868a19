#include "cli/help_model.hpp"

#include <CLI/CLI.hpp>

#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

OptionHelp describe_option(const CLI::Option& option) {
  OptionHelp help;
  help.long_names = option.get_lnames();
  help.short_names = option.get_snames();
  help.positional = option.get_positional() && !option.nonpositional();
  if (help.positional) help.name = option.get_name(true);
  help.description = option.get_description();
  help.group = option.get_group();
  help.required = option.get_required();
  // A flag takes no value; CLI11's default type names (TEXT, INT) stay shown.
  if (option.get_type_size_max() > 0) help.value_name = option.get_type_name();
  help.repeatable = option.get_expected_max() > 1 ||
                    option.get_items_expected_max() >= CLI::detail::expected_max_vector_size;
  help.kind = value_kind_of(help.value_name, &help.choices);
  return help;
}

CommandHelp describe(const CLI::App& app, std::vector<std::string> path) {
  CommandHelp help;
  help.path = std::move(path);
  help.summary = app.get_description();
  help.footer = app.get_footer();
  help.requires_subcommand = app.get_require_subcommand_min() > 0;
  for (const CLI::Option* option : app.get_options()) {
    // Hidden options (an empty group) are for packagers and tests, not for users.
    if (option->get_group().empty()) continue;
    auto described = describe_option(*option);
    if (described.positional) {
      help.positionals.push_back(std::move(described));
    } else {
      help.options.push_back(std::move(described));
    }
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;
    auto sub_path = help.path;
    sub_path.push_back(sub->get_name());
    help.subcommands.push_back(describe(*sub, std::move(sub_path)));
  }
  return help;
}

}  // namespace

std::string OptionHelp::display() const {
  if (!long_names.empty()) return "--" + long_names.front();
  if (!short_names.empty()) return "-" + short_names.front();
  return name;
}

std::string CommandHelp::full_name() const {
  std::string out = "flashfit";
  for (const auto& part : path) out += " " + part;
  return out;
}

std::string CommandHelp::page_name() const {
  std::string out = "flashfit";
  for (const auto& part : path) out += "-" + part;
  return out;
}

CommandHelp describe_command_tree(const CLI::App& app) {
  return describe(app, {});
}

ValueKind value_kind_of(const std::string& value_name, std::vector<std::string>* choices) {
  if (value_name.size() > 2 && value_name.front() == '{' && value_name.back() == '}') {
    if (choices) {
      const std::string_view inner = std::string_view(value_name).substr(1, value_name.size() - 2);
      choices->clear();
      for (auto word : util::split(inner, ',')) choices->emplace_back(word);
    }
    return ValueKind::choice;
  }
  if (value_name == "SPEC" || value_name == "PACKAGE") return ValueKind::recipe;
  if (value_name == "SOURCE") return ValueKind::source;
  if (value_name == "GPU") return ValueKind::gpu;
  if (value_name == "FILE" || value_name == "WHEEL" || value_name == "TARGET" ||
      value_name == "PATH") {
    return ValueKind::file;
  }
  if (value_name == "DIR") return ValueKind::dir;
  if (value_name == "PYTHON") return ValueKind::program;
  if (value_name == "COMMAND") return ValueKind::command;
  return ValueKind::none;
}

}  // namespace flashfit::cli
