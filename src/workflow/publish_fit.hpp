#pragma once
// Which torch builds a published wheel fits (docs/publish.md, "Environment
// pages"): pure functions of a wheel's facts and a page's key.

#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"
#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

// "2.9.1+cu128", "2.6.0+cpu", "1.13.0a0+gitunknown". The C++11 ABI: `abi` when
// given; torch 2.7 and later are built with it everywhere; earlier versions
// were built both ways, so they need `abi` (an error says so).
util::Result<EnvKey> parse_env_key(std::string_view torch_version, std::optional<bool> abi);

// Why `wheel` must not be listed on `key`'s page, or nullopt when it fits.
// A wheel whose torch is unknown fits only the keys it was placed on with
// --for-torch, and even then never a key its bytes contradict (ABI, CUDA).
// `ignore_arch_subset`: judge an arch-limited wheel as if it ran on every GPU
// (for the pages named after its archs).
std::optional<std::string> why_not_on_page(const WheelFacts& wheel, const EnvKey& key,
                                           bool ignore_arch_subset = false);

// A contradiction between the wheel's own facts and `key` (torch minor, ABI,
// CUDA): what refuses `--for-torch` placement. Nullopt when none.
std::optional<std::string> contradiction(const WheelFacts& wheel, const EnvKey& key);

// Whether a wheel with kernels cannot run on some GPU that `key`'s CUDA
// supports: every such GPU needs SASS of its major at or below its arch, or
// PTX at or below its arch (PTX is JIT-compiled only for its arch or newer);
// newer GPUs than any listed need PTX. A wheel without kernels is not limited.
bool is_arch_limited(const WheelFacts& wheel, const EnvKey& key);
// "torch-2.9.1+cu128-sm80-sm90.html": the page for an arch-limited wheel's
// archs, SASS as smXX and PTX as computeXX ("...-sm90-compute90.html").
std::string arch_page_name(const EnvKey& key, const WheelFacts& wheel);

// The key a labelled wheel names itself ("torch-2.8+cu12.html"), when its
// label gives torch and its bytes or label give the ABI.
std::optional<EnvKey> label_key(const WheelFacts& wheel);

}  // namespace flashfit::workflow
