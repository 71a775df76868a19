#include "cli/source_flags.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "pkg/name.hpp"
#include "util/env_vars.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {

void add_source_flags(CLI::App& app, resolve::SourceFlags& flags) {
  app.add_option("--index-url", flags.index_url,
                 "A PEP 503/691 simple index to use instead of the configured indexes")
      ->type_name("URL");
  app.add_option("--extra-index-url", flags.extra_index_urls, "Another simple index (repeatable)")
      ->type_name("URL");
  app.add_option("--find-links", flags.find_links,
                 "An HTML page of wheel links, or a local directory of wheels (repeatable)")
      ->type_name("PATH");
  app.add_option("--source", flags.enable, "Enable a source by name, e.g. community (repeatable)")
      ->type_name("SOURCE");
  app.add_option("--no-source", flags.disable,
                 "Disable a source by name, e.g. upstream (repeatable)")
      ->type_name("SOURCE");
  app.add_flag("--offline", flags.offline,
               "Contact no network: no index or find-links URL, and the pick's URL is not "
               "confirmed with a HEAD");
}

util::Result<resolve::Config> load_user_config() {
  resolve::ConfigLocation where;
  where.flashfit_config = util::getenv_opt("FLASHFIT_CONFIG");
  where.xdg_config_home = util::getenv_opt("XDG_CONFIG_HOME");
  where.home = util::getenv_opt("HOME");
  std::error_code ec;
  where.working_dir = std::filesystem::current_path(ec);
  return resolve::load_config(where);
}

util::Result<resolve::RecipeBook> load_recipes(const resolve::Config& config) {
  resolve::RecipeBook book = resolve::RecipeBook::built_in();
  for (const auto& dir : config.recipe_dirs) {
    if (auto ok = book.add_directory(dir); !ok) return tl::unexpected(ok.error());
  }
  return book;
}

util::Result<UserSetup> load_user_setup() {
  auto config = load_user_config();
  if (!config) return tl::unexpected(config.error());
  auto book = load_recipes(*config);
  if (!book) return tl::unexpected(book.error());
  return UserSetup{std::move(*config), std::move(*book)};
}

util::Result<resolve::Request> parse_request(const std::string& spec) {
  auto requirement = pkg::parse_requirement(spec);
  if (!requirement) {
    return util::fail(util::ErrorKind::usage,
                      fmt::format("'{}' is not a valid requirement", util::printable(spec)),
                      requirement.error().message,
                      "give a package name with an optional version specifier, e.g. flash-attn or "
                      "'flash-attn>=2.6,<2.8'");
  }
  if (requirement->url || requirement->marker || !requirement->extras.empty()) {
    return util::fail(
        util::ErrorKind::usage,
        fmt::format("'{}': URLs, extras and markers are not resolved", util::printable(spec)), {},
        "give a package name with an optional version specifier; a wheel file or URL can be "
        "checked with `flashfit inspect`");
  }
  resolve::Request request;
  request.name = pkg::canonicalize_name(requirement->name);
  request.specifier = requirement->specifier;
  request.text = requirement->str();
  return request;
}

}  // namespace flashfit::cli
