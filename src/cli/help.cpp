// flashfit help [COMMAND...] [--man] [--man-dir DIR]: the help of a command,
// or its man page, rendered from the same tree as --help.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/help_model.hpp"
#include "cli/manpage.hpp"
#include "cli/usage_errors.hpp"
#include "util/atomic_file.hpp"
#include "util/build_info.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

struct HelpOptions {
  std::vector<std::string> command;
  bool man = false;
  std::optional<std::string> man_dir;
};

// The app named by `words` under `root` ("cache", "list"); an unknown word is
// a usage error with the nearest name.
util::Result<const CLI::App*> find_command(const CLI::App& root,
                                           const std::vector<std::string>& words) {
  const CLI::App* current = &root;
  std::string typed = "flashfit";
  for (const auto& word : words) {
    const CLI::App* next = nullptr;
    std::vector<std::string> names;
    for (const CLI::App* sub : current->get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_group().empty()) continue;
      names.push_back(sub->get_name());
      if (sub->get_name() == word) next = sub;
    }
    if (!next) {
      util::Error error{util::ErrorKind::usage,
                        "no command '" + util::printable(typed + " " + word) + "'", "", ""};
      if (auto near = closest_name(word, names)) {
        error.hint = "did you mean '" + typed + " " + *near + "'?";
      } else {
        error.hint = names.empty() ? "'" + typed + "' has no subcommands"
                                   : "the commands are: " + util::join(names, ", ");
      }
      return tl::unexpected(error);
    }
    typed += " " + word;
    current = next;
  }
  return current;
}

util::Result<int> write_man_dir(const CommandHelp& tree, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return util::fail(util::ErrorKind::input,
                      "cannot create " + dir.string() + ": " + ec.message());
  }
  for (const auto& [name, text] : man_pages(tree, std::string("flashfit ") + util::kVersion)) {
    if (auto written = util::write_file_atomic(dir / name, text); !written) {
      return tl::unexpected(written.error());
    }
  }
  return 0;
}

util::Result<int> run_help(const HelpOptions& options, const CLI::App& root) {
  const auto tree = describe_command_tree(root);
  if (options.man_dir) return write_man_dir(tree, *options.man_dir);
  auto target = find_command(root, options.command);
  if (!target) return tl::unexpected(target.error());
  if (!options.man) {
    // The formatter directly: App::help() would follow the parsed `help` subcommand.
    std::vector<std::string> path;
    for (const CLI::App* app = *target; app; app = app->get_parent())
      path.insert(path.begin(), app->get_name());
    write_stdout((*target)->get_formatter()->make_help(*target, util::join(path, " "),
                                                       CLI::AppFormatMode::Normal));
    return 0;
  }
  const CommandHelp* page = &tree;
  for (const auto& word : options.command) {
    for (const auto& sub : page->subcommands) {
      if (sub.path.back() == word) page = &sub;
    }
  }
  write_stdout(man_page(*page, tree, std::string("flashfit ") + util::kVersion));
  return 0;
}

}  // namespace

Runner define_help(CLI::App& app) {
  auto options = std::make_shared<HelpOptions>();
  app.add_option("command", options->command, "The command to explain, e.g. resolve, or cache list")
      ->type_name("COMMAND");
  app.add_flag("--man", options->man,
               "Print the command's man page (roff) instead, e.g. | man -l -");
  app.add_option("--man-dir", options->man_dir,
                 "Write flashfit.1 and a page per command (flashfit-resolve.1, ...) into DIR")
      ->type_name("DIR");
  CLI::App* self = &app;
  return [options, self]() { return run_help(*options, *self->get_parent()); };
}

}  // namespace flashfit::cli
