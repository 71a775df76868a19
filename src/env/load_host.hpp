#pragma once
// The bridge from the probe to the inspect verdict: an Environment (probed,
// or with what-if overrides) becomes the binary::LoadHost the checks compare
// against. Reading torch's libraries happens here, once.

#include "binary/verdict.hpp"
#include "env/environment.hpp"

namespace flashfit::env {

// `read_torch_libraries` false: everything but torch's libraries' symbols
// (tens of ms for a CUDA torch), which fill_torch_libraries reads when an
// inspection needs them; a cached verdict's key does not (install/cached_verdict).
binary::LoadHost load_host_for(const Environment& env, bool read_torch_libraries = true);
void fill_torch_libraries(const Environment& env, binary::LoadHost& host);

}  // namespace flashfit::env
