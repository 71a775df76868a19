// Recipe TOML: anything is a recipe or an input error naming the file, never
// a throw; a recipe has a name and uniquely named sources.
#include <set>

#include "fuzz_common.hpp"
#include "resolve/recipe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit;
  const auto text = fuzz::as_text(data, size);
  auto recipe = resolve::parse_recipe(text, "fuzz.toml");
  if (!recipe) {
    const auto& e = recipe.error();
    FUZZ_CHECK(e.kind == util::ErrorKind::input, "not an input error: " + e.message);
    FUZZ_CHECK((e.message + e.context).find("fuzz.toml") != std::string::npos,
               "the error does not name the file: " + util::render(e));
    return 0;
  }
  FUZZ_CHECK(!recipe->name.empty(), "a recipe without a name");
  FUZZ_CHECK(recipe->origin == "fuzz.toml", "origin: " + recipe->origin);
  std::set<std::string> names;
  for (const auto& source : recipe->sources) {
    FUZZ_CHECK(names.insert(source.name).second, "two sources named " + source.name);
    FUZZ_CHECK(recipe->source(source.name) != nullptr, "source() misses " + source.name);
  }
  return 0;
}
