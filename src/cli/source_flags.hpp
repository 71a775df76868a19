#pragma once
// The source flags of resolve / install (pip-like), and what every command
// that resolves shares: the config, the recipe book, the requirement.
#include <optional>
#include <string>

#include "pkg/requirement.hpp"
#include "resolve/config.hpp"
#include "resolve/gather.hpp"
#include "resolve/recipe.hpp"
#include "resolve/rules.hpp"
#include "util/error.hpp"

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's namespace
class App;
}

namespace flashfit::cli {

// Adds --index-url, --extra-index-url, --find-links, --source, --no-source.
void add_source_flags(CLI::App& app, resolve::SourceFlags& flags);

// The config from $FLASHFIT_CONFIG / ./flashfit.toml / $XDG_CONFIG_HOME.
util::Result<resolve::Config> load_user_config();

// Built-in recipes plus the config's recipe directories.
util::Result<resolve::RecipeBook> load_recipes(const resolve::Config& config);

// What every command that resolves starts from: the user's config and the
// recipes it names.
struct UserSetup {
  resolve::Config config;
  resolve::RecipeBook book;
};
util::Result<UserSetup> load_user_setup();

// "flash-attn>=2.6,<2.8" -> a Request; URLs, markers and extras are refused
// with a usage error that says what to give instead.
util::Result<resolve::Request> parse_request(const std::string& spec);

}  // namespace flashfit::cli
