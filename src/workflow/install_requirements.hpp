#pragma once
// `flashfit install -r FILE [SPEC ...]` planned as a value (pure): which
// lines go to the installer unchanged (in one run, first, so torch is there or
// changed before the compiled packages are chosen), which packages flashfit
// takes (recipe packages in any form, each with the pin it resolves, in file
// order), which lines a marker leaves out here, and the sources from the
// files' option lines. cli/install_requirements runs it.

#include <optional>
#include <string>
#include <vector>

#include "pkg/marker.hpp"
#include "pkg/requirements_file.hpp"
#include "resolve/gather.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"
#include "workflow/requirements_split.hpp"

namespace flashfit::workflow {

// A recipe package flashfit installs, as `flashfit install <spec>` would.
struct TakenPackage {
  std::string recipe;  // canonical name
  std::string where;   // "requirements.txt:7"
  RecipeLineForm form = RecipeLineForm::spec;
  // What `flashfit install` gets: "flash-attn==2.8.3", "ffinst==1.0" (a URL's
  // or path's public version), "flash-attn" (no pin).
  std::string spec;
  // The wheel / sdist URL or path the line named (reported, never installed
  // as such: it was built for some environment, maybe not this one).
  std::optional<std::string> url;
  std::vector<std::string> extras;  // the line's [extras]: their dependencies are checked
  std::vector<std::string> hashes;  // the line's --hash values ("sha256:<hex>"), in file order
  std::vector<std::string> notes;   // hashes not checked, ...
};

// A line a marker leaves out in this environment (pip skips it too).
struct SkippedLine {
  std::string where;
  std::string text;
  bool hashed = false;  // it has --hash: pip, given the file, would check every hash
};

struct InstallRequirementsPlan {
  // Requirement lines for the installer, unchanged (hashes kept), in order;
  // constraints (from -c files) separately.
  std::vector<pkg::RequirementLine> installer;
  std::vector<pkg::RequirementLine> constraints;
  std::vector<pkg::PassthroughOption> passthrough;  // option lines kept as written
  std::vector<TakenPackage> flashfit;
  std::vector<SkippedLine> skipped;
  // The files' --index-url / --extra-index-url / --find-links over the
  // command line's flags (a flag's --index-url wins over a file's); both the
  // installer and flashfit's resolve use them.
  // A file's --no-index is `sources.no_index`: the installer gets it back, and
  // flashfit's own picks consult no index and no release catalog either.
  resolve::SourceFlags sources;
};

// `files`: each -r file parsed, then the command line's SPECs parsed as one
// more file. `markers`: the target interpreter's marker environment (a
// recipe line whose marker is false here is skipped). Errors (exit 2, the
// line named): a recipe package named twice with different pins, a marker
// that cannot be evaluated, a wheel or sdist whose version cannot be read.
util::Result<InstallRequirementsPlan> plan_install_requirements(
    const std::vector<pkg::RequirementsFile>& files, const resolve::RecipeBook& recipes,
    const pkg::MarkerEnvironment& markers, const resolve::SourceFlags& flags);

// The requirements file the installer is run with (`pip install -r`): the
// sources, the option lines kept, every installer line with its hashes, and
// `-c <constraints_file>` when there are constraints. Empty when nothing is
// for the installer.
std::string installer_requirements_text(const InstallRequirementsPlan& plan,
                                        const std::string& constraints_file);
// The constraint lines, for the file `-c` names.
std::string installer_constraints_text(const InstallRequirementsPlan& plan);

// Whether pip's run over the installer's file is in hash-checking mode: a
// --hash on any line (one flashfit takes or one a marker skips included) or
// --require-hashes passed through. Every requirement then needs its hash.
bool hash_checking(const InstallRequirementsPlan& plan);

std::string_view to_string(RecipeLineForm form);  // "spec", "wheel-url", "sdist", "source"

// Whether the first compiled package's import check starts before the
// installer's run over the lines, so that its `import torch` (about a second)
// overlaps that run: a real run with both lines and compiled packages, and
// torch installed now. What the lines change is the check's own business to
// prove (install/preloaded_check); a torch that is not there yet cannot be
// preloaded.
bool preload_check_before_lines(const InstallRequirementsPlan& plan, bool dry_run,
                                bool torch_installed);

// Whether the installer has anything to do: lines flashfit does not take, or
// an option line that is itself a requirement (`-e ./pkg`, `--editable`), which
// pip installs even when no other line is left to it.
bool installer_runs(const InstallRequirementsPlan& plan);

// Whether a requirement line names torch (any spelling): such a line decides
// torch itself, and flashfit does not hold it.
bool names_torch(const pkg::RequirementLine& line);

// The constraint ("torch==2.14.1+cu130\n") under which the installer's run
// over the lines may take the first compiled package's wheel too, so that
// one installer start does what two did: torch held at `torch_version`, the
// version installed now, so the package picked before the run stays right
// after it. nullopt (the lines run first and alone, as without sharing) for
// a dry run, nothing to share, no torch installed, or lines that could make
// the shared run fail for the wheel's sake or mean to change torch: a line or
// constraint naming torch, a hash (pip's hash-checking mode would refuse the
// wheel's path) or an option line flashfit does not read.
std::optional<std::string> shared_run_pins(const InstallRequirementsPlan& plan, bool dry_run,
                                           std::string_view torch_version);

}  // namespace flashfit::workflow
