#pragma once
// Each recipe's compiled module, for inspect's "a wheel without its module"
// check. binary/ knows no package: the caller puts these into
// binary::LoadHost::required_modules (inspect, install).
#include <vector>

#include "binary/verdict.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::resolve {

// One per recipe with a binary_module, under its canonical name.
std::vector<binary::RequiredModule> required_modules(const RecipeBook& book);

}  // namespace flashfit::resolve
