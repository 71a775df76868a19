#pragma once
// The parts of preflight's "archs" check that read the plan's targets
// against facts the plan itself does not check: which targets this nvcc
// compiles (build/nvcc_targets), and whether any GPU here runs what the
// build would make (flashfit keeps a built wheel only when it runs here, so
// a build no GPU can use is hours for a wheel thrown away). Pure.

#include <optional>
#include <string>

#include "build/plan.hpp"
#include "build/preflight.hpp"
#include "env/environment.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::build::detail {

// A failed "archs" check when the plan names targets this nvcc no longer (or
// not yet) compiles; `what` is the plan's arch line for the message. Targets
// the recipe's own tokens already check (min_nvcc) are left to that check.
// nullopt when every target compiles, or when nvcc's version is unknown.
std::optional<PreflightCheck> archs_nvcc_refuses(const env::Environment& env,
                                                 const resolve::Recipe* recipe,
                                                 const BuildPlan& plan, const std::string& what);

// "; whether nvcc 12.6 compiles sm_88 is not known": the targets the table
// cannot answer for, said rather than taken as fine. Empty when none.
std::string archs_nvcc_unknown_note(const env::Environment& env, const BuildPlan& plan);

// A failed "archs" check when GPUs here are known, and the plan's targets
// are all known and none runs on any of them. nullopt otherwise.
std::optional<PreflightCheck> archs_run_nowhere_here(const env::Environment& env,
                                                     const BuildPlan& plan,
                                                     const std::string& package,
                                                     const std::string& what);

}  // namespace flashfit::build::detail
