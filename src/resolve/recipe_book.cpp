// RecipeBook: the built-in recipes plus the user's, found by name or alias.
#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <span>
#include <stdexcept>
#include <system_error>

#include "pkg/name.hpp"
#include "resolve/compiled_recipe.hpp"
#include "resolve/embedded.hpp"
#include "resolve/recipe.hpp"
#include "resolve/required_modules.hpp"
#include "resolve/text_file.hpp"
#include "resolve/toml_reader.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

namespace fs = std::filesystem;

// A directory of recipes is a handful of files; thousands means a wrong path.
constexpr std::size_t kMaxRecipeFiles = 1000;

// Every name that finds a recipe, PEP 503-normalised.
std::vector<std::string> lookup_names(const Recipe& recipe) {
  std::vector<std::string> names{pkg::canonicalize_name(recipe.name)};
  for (const std::string& alias : recipe.aliases) {
    std::string canonical = pkg::canonicalize_name(alias);
    if (std::find(names.begin(), names.end(), canonical) == names.end()) {
      names.push_back(std::move(canonical));
    }
  }
  return names;
}

std::string describe_origin(const Recipe& recipe) {
  return recipe.origin.empty() ? "a recipe" : recipe.origin;
}

// A name of `recipe` that one of `others` (not one of the same name, which it
// would replace) already answers to: `find` would be ambiguous.
struct Claim {
  const Recipe* other = nullptr;
  std::string name;
};
std::optional<Claim> claimed_elsewhere(const Recipe& recipe, std::span<const Recipe> others) {
  const std::vector<std::string> names = lookup_names(recipe);
  for (const Recipe& other : others) {
    if (other.name == recipe.name) continue;
    const std::vector<std::string> taken = lookup_names(other);
    for (const std::string& name : names) {
      if (std::find(taken.begin(), taken.end(), name) != taken.end()) return Claim{&other, name};
    }
  }
  return std::nullopt;
}

}  // namespace

RecipeBook RecipeBook::built_in() {
  RecipeBook book;
  const auto files = embedded_recipes();
  book.recipes_.resize(files.size());
  for (const EmbeddedFile& file : files) book.built_in_.push_back({file.name, file.text});
  return book;
}

util::Result<Recipe> parse_built_in_recipe(std::string_view file, std::string_view text) {
  auto recipe = parse_recipe(text, fmt::format("recipes/{}", file));
  if (!recipe) return recipe;
  recipe->origin = "built-in";
  recipe->name = pkg::canonicalize_name(recipe->name);
  if (recipe->name.empty()) {
    return util::fail(util::ErrorKind::internal,
                      fmt::format("built-in recipe {} has no name", file));
  }
  return recipe;
}

void RecipeBook::parse_pending(std::size_t index) const {
  BuiltIn& entry = built_in_[index];
  if (entry.parsed) return;
  // Compiled when the binary was built from this same file: no TOML to read.
  if (const CompiledRecipe* compiled = find_compiled_recipe(entry.file)) {
    recipes_[index] = compiled->make();
  } else {
    auto recipe = parse_built_in_recipe(entry.file, entry.text);
    if (!recipe) throw std::logic_error("built-in recipe: " + util::render(recipe.error()));
    recipes_[index] = std::move(*recipe);
  }
  entry.parsed = true;
}

bool RecipeBook::all_parsed() const {
  return std::all_of(built_in_.begin(), built_in_.end(), [](const BuiltIn& b) { return b.parsed; });
}

void RecipeBook::parse_all() const {
  if (all_parsed()) return;
  for (std::size_t i = 0; i < built_in_.size(); ++i) parse_pending(i);
  // What add() refuses of a user recipe, for the built-in ones together.
  const std::span<const Recipe> all(recipes_);
  for (std::size_t i = 0; i < all.size(); ++i) {
    // Two built-in recipes of one name are a claim too: no built-in one replaces another.
    if (std::any_of(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(i),
                    [&](const Recipe& r) { return r.name == all[i].name; }))
      throw std::logic_error(fmt::format("built-in recipe \"{}\" is defined twice", all[i].name));
    if (auto claim = claimed_elsewhere(all[i], all.first(i))) {
      throw std::logic_error(fmt::format("built-in recipes \"{}\" and \"{}\" both claim \"{}\"",
                                         claim->other->name, all[i].name, claim->name));
    }
  }
}

const std::vector<Recipe>& RecipeBook::recipes() const {
  parse_all();
  return recipes_;
}

util::Result<void> RecipeBook::add(Recipe recipe) {
  parse_all();  // a user recipe is checked against every built-in one
  recipe.name = pkg::canonicalize_name(recipe.name);
  if (recipe.name.empty()) return util::input_error("recipe without a name", recipe.origin);
  auto replaced = std::find_if(recipes_.begin(), recipes_.end(),
                               [&](const Recipe& r) { return r.name == recipe.name; });
  // An alias that already finds another recipe would make `find` ambiguous.
  if (auto claim = claimed_elsewhere(recipe, recipes_)) {
    return util::input_error(
        fmt::format("recipe \"{}\" claims the name \"{}\", which already means recipe \"{}\" ({})",
                    recipe.name, claim->name, claim->other->name, describe_origin(*claim->other)),
        describe_origin(recipe), "remove the alias, or override that recipe under its own name");
  }
  if (replaced != recipes_.end()) {
    *replaced = std::move(recipe);  // a user recipe replaces the built-in one whole
  } else {
    recipes_.push_back(std::move(recipe));
  }
  return {};
}

util::Result<void> RecipeBook::add_directory(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (status.type() == fs::file_type::not_found) return {};
  if (ec)
    return util::input_error(fmt::format("cannot read recipe directory: {}", ec.message()),
                             dir.string());
  if (status.type() != fs::file_type::directory) {
    return util::input_error("recipe directory is not a directory", dir.string());
  }
  std::vector<fs::path> files;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // Hidden names are editor lock and backup files (".#x.toml"), not recipes.
    if (name.empty() || name.front() == '.' || !util::ends_with(name, ".toml")) continue;
    files.push_back(it->path());
    if (files.size() > kMaxRecipeFiles) {
      return util::input_error(fmt::format("more than {} recipe files", kMaxRecipeFiles),
                               dir.string());
    }
  }
  if (ec)
    return util::input_error(fmt::format("cannot list recipe directory: {}", ec.message()),
                             dir.string());
  std::sort(files.begin(), files.end());

  // Read everything first: one bad file leaves the book as it was.
  std::vector<Recipe> parsed;
  for (const fs::path& file : files) {
    auto text = detail::read_text_file(file, detail::kMaxTomlBytes);
    if (!text) return tl::unexpected(std::move(text.error()));
    auto recipe = parse_recipe(*text, file.string());
    if (!recipe) return tl::unexpected(std::move(recipe.error()));
    for (const Recipe& earlier : parsed) {
      if (earlier.name == recipe->name) {
        return util::input_error(
            fmt::format("recipe \"{}\" is also defined in {}", recipe->name, earlier.origin),
            file.string(), "keep one file per recipe");
      }
    }
    parsed.push_back(std::move(*recipe));
  }
  RecipeBook staged = *this;
  for (Recipe& recipe : parsed) {
    if (auto added = staged.add(std::move(recipe)); !added) return added;
  }
  *this = std::move(staged);
  return {};
}

const Recipe* RecipeBook::find(std::string_view name) const {
  const std::string wanted = pkg::canonicalize_name(name);
  if (wanted.empty()) return nullptr;
  // A built-in recipe's file is named for it ("flash-attn.toml"): that file
  // alone is parsed for its own name. No two recipes claim one name (built-in
  // ones are checked together, a user's by add()), so the first that has it is the one.
  for (std::size_t i = 0; i < built_in_.size(); ++i) {
    if (built_in_[i].parsed) continue;
    std::string_view stem = built_in_[i].file;
    if (util::ends_with(stem, ".toml")) stem.remove_suffix(5);
    if (pkg::canonicalize_name(stem) == wanted) parse_pending(i);
  }
  auto find_parsed = [&]() -> const Recipe* {
    for (std::size_t i = 0; i < recipes_.size(); ++i) {
      if (i < built_in_.size() && !built_in_[i].parsed) continue;
      const std::vector<std::string> names = lookup_names(recipes_[i]);
      if (std::find(names.begin(), names.end(), wanted) != names.end()) return &recipes_[i];
    }
    return nullptr;
  };
  if (const Recipe* found = find_parsed()) return found;
  if (all_parsed()) return nullptr;
  parse_all();  // an alias, or no recipe: every one is read to say which
  return find_parsed();
}

std::vector<std::string> RecipeBook::similar(std::string_view name) const {
  const std::string wanted = pkg::canonicalize_name(name);
  // The distance table is |a|*|b|: hostile lengths get no suggestion.
  if (wanted.empty() || wanted.size() > 100) return {};
  // Every name and alias, each for its recipe.
  std::vector<std::string> names;
  std::vector<const Recipe*> owners;
  for (const Recipe& recipe : recipes()) {
    for (std::string& alias : lookup_names(recipe)) {
      names.push_back(std::move(alias));
      owners.push_back(&recipe);
    }
  }
  const auto near =
      util::near_names(wanted, names, [&](std::string_view candidate, std::size_t distance) {
        // "flash" for "flash-attn": a fragment of a name is a near miss too.
        if (wanted.size() >= 3 && candidate.find(wanted) != std::string_view::npos)
          distance = std::min<std::size_t>(distance, 1);
        return util::within_a_third(2)(candidate, distance);
      });
  // Each recipe once, at its nearest name; equally near ones by name.
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const util::NearName& n : near) {
    const std::string& recipe = owners[n.index]->name;
    if (std::none_of(scored.begin(), scored.end(),
                     [&](const auto& s) { return s.second == recipe; }))
      scored.emplace_back(n.distance, recipe);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (const auto& entry : scored) {
    if (out.size() == 3) break;
    out.push_back(entry.second);
  }
  return out;
}

}  // namespace flashfit::resolve

namespace flashfit::resolve {

std::vector<binary::RequiredModule> required_modules(const RecipeBook& book) {
  std::vector<binary::RequiredModule> out;
  for (const Recipe& recipe : book.recipes()) {
    if (!recipe.binary_module.empty()) out.push_back({recipe.name, recipe.binary_module});
  }
  return out;
}

}  // namespace flashfit::resolve
