#pragma once
// Pieces of parse_recipe shared by its two files (internal to resolve/):
// recipe_toml.cpp reads [package], [[source]], [[release]], [[known_broken]];
// recipe_build_toml.cpp reads [build].
#include <optional>
#include <string>
#include <string_view>

#include "resolve/recipe.hpp"
#include "resolve/toml_reader.hpp"

namespace flashfit::resolve::detail {

// "8.0"-style values kept as text (glibc, compute capability, nvcc); `example`
// words the error ("a string like \"2.32\"").
std::optional<std::string> major_minor_text(TomlReader& reader, const toml::table& table,
                                            std::string_view path, std::string_view key,
                                            std::string_view example);

// The [build] table; `build` arrives with the recipe's defaults.
void parse_build(TomlReader& reader, const toml::table& table, BuildKnobs& build);

}  // namespace flashfit::resolve::detail
