#pragma once
// The bridge from the probe to the inspect verdict: an Environment (probed,
// or with what-if overrides) becomes the binary::LoadHost the checks compare
// against. Reading torch's libraries happens here, once.

#include "binary/verdict.hpp"
#include "env/environment.hpp"

namespace flashfit::env {

binary::LoadHost load_host_for(const Environment& env);

}  // namespace flashfit::env
