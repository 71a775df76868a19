#pragma once
// Project names: PEP 503 normalisation and the PEP 508 spelling rule.

#include <string>
#include <string_view>

namespace flashfit::pkg {

// PEP 503 / packaging.utils.canonicalize_name: each run of '-', '_' and '.'
// becomes one '-', and ASCII letters are lower-cased ("Flash_Attn" ->
// "flash-attn"). It does not validate; see is_valid_project_name.
std::string canonicalize_name(std::string_view name);

// PEP 508's name rule: ASCII letters and digits, with '-', '_' and '.'
// allowed inside; it must start and end with a letter or digit.
bool is_valid_project_name(std::string_view name);

}  // namespace flashfit::pkg
