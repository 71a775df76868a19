// Config TOML: a config or an input error naming the file, never a throw;
// index names are unique and relative paths resolve under the base dir.
#include <set>

#include "fuzz_common.hpp"
#include "resolve/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit;
  const auto text = fuzz::as_text(data, size);
  auto config = resolve::parse_config(text, "fuzz.toml", "/fuzz-base");
  if (!config) {
    const auto& e = config.error();
    FUZZ_CHECK(e.kind == util::ErrorKind::input, "not an input error: " + e.message);
    FUZZ_CHECK((e.message + e.context).find("fuzz.toml") != std::string::npos,
               "the error does not name the file: " + util::render(e));
    return 0;
  }
  std::set<std::string> names;
  for (const auto& index : config->indexes) {
    FUZZ_CHECK(names.insert(index.name).second, "two indexes named " + index.name);
    FUZZ_CHECK(!index.location.empty(), "an index without a location: " + index.name);
  }
  for (const auto& dir : config->recipe_dirs) {
    FUZZ_CHECK(dir.is_absolute(), "a relative recipe dir: " + dir.string());
  }
  return 0;
}
