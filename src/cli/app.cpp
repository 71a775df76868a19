// The command-line frame: global flags, the command table, "did you mean",
// and the one place where errors become messages and exit codes.

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <sstream>

#include "cli/command.hpp"
#include "util/build_info.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 ok, 1 the task failed, 2 bad usage or unreadable input, 130 interrupted.";

// The first argument that is not an option names the command. flashfit has no
// global option that takes a value, so this needs no knowledge of CLI11.
std::optional<std::string_view> typed_command(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return std::nullopt;
    if (!arg.empty() && arg.front() != '-') return arg;
  }
  return std::nullopt;
}

bool is_known_command(std::string_view name) {
  for (const auto& command : command_table()) {
    if (command.name == name) return true;
  }
  return false;
}

int report(const util::Error& error) {
  std::fprintf(stderr, "%s\n", util::render(error).c_str());
  return util::exit_code(error.kind);
}

int run_parsed(int argc, const char* const* argv) {
  CLI::App app{
      "flashfit: find, verify, install or build the flash-attn wheel that fits this machine.",
      "flashfit"};
  app.set_version_flag("--version", std::string("flashfit ") + util::kVersion);
  app.require_subcommand(0, 1);
  app.footer(kExitCodes);

  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (const auto& command : command_table()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.summary));
    sub->footer(kExitCodes);
    runners.emplace_back(sub, command.define(*sub));
  }

  if (auto typed = typed_command(argc, argv); typed && !is_known_command(*typed)) {
    util::Error error{util::ErrorKind::usage, "unknown command '" + util::printable(*typed) + "'",
                      "", ""};
    if (auto suggestion = suggest_command(*typed)) {
      error.hint = "did you mean '" + *suggestion + "'?";
    } else {
      error.hint = "run 'flashfit --help' for the list of commands";
    }
    return report(error);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive as "errors" whose exit code is 0.
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    std::fputs(out.str().c_str(), stdout);
    if (code != 0) {
      std::fprintf(stderr, "flashfit: %s", err.str().c_str());
      return util::exit_code(util::ErrorKind::usage);
    }
    return 0;
  }

  for (auto& [sub, runner] : runners) {
    if (!sub->parsed()) continue;
    auto result = runner();
    if (util::interrupted()) {
      // Keep what the command said about its way out ("interrupted; restored 0.9").
      if (!result && result.error().kind == util::ErrorKind::interrupted) {
        return report(std::move(result).error().with_context(sub->get_name()));
      }
      return report(util::Error{util::ErrorKind::interrupted, "interrupted", "", ""});
    }
    if (!result) return report(std::move(result).error().with_context(sub->get_name()));
    return *result;
  }

  std::fputs(app.help().c_str(), stderr);
  return util::exit_code(util::ErrorKind::usage);
}

}  // namespace

std::optional<std::string> suggest_command(std::string_view typed) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& command : command_table()) {
    const auto distance = util::edit_distance(typed, command.name);
    // Close enough: at most a third of the name wrong (and never more than 3 edits),
    // or the typed text is a prefix of the command.
    const auto limit = std::min<std::size_t>(3, std::max<std::size_t>(1, command.name.size() / 3));
    const bool prefix = typed.size() >= 2 && util::starts_with(command.name, typed);
    if ((distance <= limit || prefix) && (!best || distance < best_distance)) {
      best = std::string(command.name);
      best_distance = distance;
    }
  }
  return best;
}

int run(int argc, const char* const* argv) {
  util::install_interrupt_handlers();
  // A reader that goes away (flashfit tags | head) must not kill us mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  // No exception may escape main, and none may reach the user without context.
  try {
    return run_parsed(argc, argv);
  } catch (const std::exception& e) {
    return report(util::Error{util::ErrorKind::internal, e.what(), "unexpected exception", ""});
  } catch (...) {
    return report(
        util::Error{util::ErrorKind::internal, "unknown exception", "unexpected exception", ""});
  }
}

}  // namespace flashfit::cli
