#pragma once
// The small value grammars of recipes and the config (internal to resolve/):
// "8.0", "9.0@11.8", "cu118", source names, placeholders in URL templates.
// Pure functions, so the tests can poke at them with hostile text.
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "pkg/variant.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::resolve {

// "12" -> 12; at most 4 digits, nothing else.
std::optional<int> parse_small_int(std::string_view text);
// "12.8" -> {12, 8}: two small numbers and one dot.
std::optional<std::pair<int, int>> parse_major_minor(std::string_view text);
// "8.0" -> sm_80; "9.0@11.8" -> sm_90 built only by CUDA >= 11.8.
std::optional<GpuArch> parse_gpu_arch(std::string_view text);

std::optional<pkg::VariantScheme> parse_variant_scheme(std::string_view text);  // not "unknown"
std::optional<AbiRule> parse_abi_rule(std::string_view text);

bool is_module_name(std::string_view text);  // "flash_attn", "flash_attn_3._C"
bool is_source_name(std::string_view text);  // "upstream", "my-mirror": [a-z][a-z0-9-]*
bool is_repository(std::string_view text);   // "Dao-AILab/flash-attention"
bool is_env_name(std::string_view text);     // "FLASH_ATTN_CUDA_ARCHS"
bool is_cuda_token(std::string_view text);   // "cu12", "cu118"

// Why a "{name}" template is wrong (an unknown or unclosed placeholder, or
// `required_name` missing), or nullopt when it is fine.
std::optional<std::string> placeholder_problem(std::string_view text,
                                               std::initializer_list<std::string_view> allowed,
                                               std::string_view required_name);

}  // namespace flashfit::resolve
