// install -r planned as a value; see install_requirements.hpp.
#include "workflow/install_requirements.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "net/http.hpp"
#include "pkg/name.hpp"
#include "pkg/version.hpp"
#include "util/strings.hpp"

namespace flashfit::workflow {
namespace {

// A line flashfit takes has --hash, whether its marker holds here or not
// (pip turns hash-checking on for the whole file before it reads markers).
bool takes_hashed_line(const InstallRequirementsPlan& plan) {
  return std::any_of(plan.flashfit.begin(), plan.flashfit.end(),
                     [](const TakenPackage& taken) { return !taken.hashes.empty(); }) ||
         std::any_of(plan.skipped.begin(), plan.skipped.end(),
                     [](const SkippedLine& skipped) { return skipped.hashed; });
}

std::string where_of(const pkg::RequirementLine& line) {
  return fmt::format("{}:{}", line.file, line.line);
}

// A path/URL line keeps its marker only in its text ("./x.whl ; python_version < '3.12'").
util::Result<std::optional<pkg::Marker>> line_marker(const pkg::RequirementLine& line) {
  if (line.requirement) return line.requirement->marker;
  const auto semi = line.text.find(';');
  if (semi == std::string::npos) return std::optional<pkg::Marker>{};
  auto marker = pkg::Marker::parse(line.text.substr(semi + 1));
  if (!marker) return tl::unexpected(marker.error());
  return std::optional<pkg::Marker>{std::move(*marker)};
}

// "==1.0+cu12torch2.6cxx11abifalse" -> "==1.0": another environment's label
// names the variant that fitted there; the release is what the file pins.
util::Result<std::string> public_pin(const RecipeLine& taken) {
  for (const pkg::Specifier& s : taken.pin.specifiers()) {
    auto version = pkg::Version::parse(s.version_text());
    if (version) return "==" + version->public_str();
  }
  return util::input_error("cannot read a version from the file name", where_of(taken.line),
                           "name the package with a version instead (flash-attn==2.8.3)");
}

util::Result<TakenPackage> take(const RecipeLine& taken) {
  TakenPackage out;
  out.recipe = taken.recipe;
  out.where = where_of(taken.line);
  out.form = taken.form;
  out.url = taken.url;
  if (taken.form == RecipeLineForm::spec) {
    out.spec = taken.recipe + taken.pin.str();
  } else if (taken.form == RecipeLineForm::source) {
    // A source names no version flashfit can read (a VCS ref is any name):
    // the pick is the newest that fits, said, instead of a build of it.
    out.spec = taken.recipe;
    out.notes.push_back(fmt::format(
        "named as a source that says no version: flashfit picks the newest {} wheel that fits "
        "here instead of building it; pin a version ({}==X) to keep one",
        taken.recipe, taken.recipe));
  } else {
    auto pin = public_pin(taken);
    if (!pin) return tl::unexpected(pin.error());
    out.spec = taken.recipe + *pin;
  }
  const auto& extras = taken.line.requirement ? taken.line.requirement->extras : taken.line.extras;
  if (!extras.empty()) {
    out.extras = extras;
    out.notes.push_back(fmt::format(
        "extras [{}]: what they require is checked once it is installed, and what is missing is "
        "named with the command that installs it",
        fmt::join(out.extras, ",")));
  }
  out.hashes = taken.line.hashes;
  if (!taken.line.hashes.empty()) {
    out.notes.push_back(
        "the line's --hash is for the file it named: checked when that file is here, before "
        "anything is installed; flashfit verifies a wheel it picks instead by its RECORD and "
        "inspection");
  }
  return out;
}

void merge_sources(const pkg::RequirementsFile& file, resolve::SourceFlags& sources,
                   bool flag_index_url) {
  if (file.index_url && !flag_index_url) sources.index_url = file.index_url;
  for (const auto& url : file.extra_index_urls) {
    if (std::find(sources.extra_index_urls.begin(), sources.extra_index_urls.end(), url) ==
        sources.extra_index_urls.end())
      sources.extra_index_urls.push_back(url);
  }
  for (const auto& link : file.find_links) {
    if (std::find(sources.find_links.begin(), sources.find_links.end(), link) ==
        sources.find_links.end())
      sources.find_links.push_back(link);
  }
}

// pip shlex-splits an option line, so a value with a space (a find-links
// directory "/tmp/wh eels") must be quoted or pip reads "/tmp/wh".
void option_line(std::string& out, std::string_view option, const std::string& value) {
  out += fmt::format("{} {}\n", option, pkg::quote_option_value(value));
}

// A requirement line as the installer gets it: the text as written, then its
// own options (pip applies --global-option and the like to that line only)
// and hashes.
void requirement_text(std::string& out, const pkg::RequirementLine& line) {
  out += line.text;
  for (const auto& option : line.options)
    out += fmt::format(" {}={}", option.name, pkg::quote_option_value(option.value));
  for (const auto& hash : line.hashes) out += " --hash=" + hash;
  out += '\n';
}

// A constraint naming a package flashfit takes narrows flashfit's pick, as
// pip would narrow its own ("-c c.txt" with "flash-attn==2.6.3"): its
// specifier joins the package's pin. The line still goes to the installer's
// constraints, which the pick then satisfies.
util::Result<void> apply_recipe_constraints(InstallRequirementsPlan& plan,
                                            const resolve::RecipeBook& recipes,
                                            const pkg::MarkerEnvironment& markers) {
  for (const pkg::RequirementLine& line : plan.constraints) {
    if (!line.requirement || line.requirement->specifier.empty()) continue;
    const resolve::Recipe* recipe = recipes.find(line.requirement->name);
    if (!recipe) continue;
    const auto taken =
        std::find_if(plan.flashfit.begin(), plan.flashfit.end(),
                     [&](const TakenPackage& t) { return t.recipe == recipe->name; });
    if (taken == plan.flashfit.end()) continue;
    if (line.requirement->marker) {
      auto applies = line.requirement->marker->evaluate(markers);
      if (!applies) {
        return util::input_error(
            fmt::format("cannot evaluate the marker: {}", applies.error().message), where_of(line));
      }
      if (!*applies) continue;
    }
    const std::string narrowing = line.requirement->specifier.str();
    const bool pinned = taken->spec.size() > taken->recipe.size();
    taken->spec += (pinned ? "," : "") + narrowing;
    taken->notes.push_back(
        fmt::format("constrained by {} ({}{})", where_of(line), recipe->name, narrowing));
  }
  return {};
}

}  // namespace

std::string_view to_string(RecipeLineForm form) {
  switch (form) {
    case RecipeLineForm::spec:
      return "spec";
    case RecipeLineForm::wheel_url:
      return "wheel-url";
    case RecipeLineForm::sdist:
      return "sdist";
    case RecipeLineForm::source:
      return "source";
  }
  return "spec";
}

util::Result<InstallRequirementsPlan> plan_install_requirements(
    const std::vector<pkg::RequirementsFile>& files, const resolve::RecipeBook& recipes,
    const pkg::MarkerEnvironment& markers, const resolve::SourceFlags& flags) {
  InstallRequirementsPlan plan;
  plan.sources = flags;
  std::map<std::string, std::size_t> by_recipe;  // recipe -> index in plan.flashfit
  for (const pkg::RequirementsFile& file : files) {
    merge_sources(file, plan.sources, flags.index_url.has_value());
    plan.sources.no_index = plan.sources.no_index || file.no_index;
    plan.passthrough.insert(plan.passthrough.end(), file.passthrough.begin(),
                            file.passthrough.end());
    RequirementsSplit split = split_requirements(file, recipes);
    if (!split.refused.empty()) {
      const pkg::RequirementLine& line = split.refused.front();
      return util::input_error(
          fmt::format("{} (pip's older grammar reads it, but flashfit installs {} itself and "
                      "needs a PEP 440 specifier)",
                      line.loose_specifier->message, line.requirement->name),
          where_of(line), "write a PEP 440 specifier, such as flash-attn==2.8.3 or >=2.8,<2.9");
    }
    for (pkg::RequirementLine& line : split.installer) {
      (line.constraint ? plan.constraints : plan.installer).push_back(std::move(line));
    }
    for (const RecipeLine& taken : split.flashfit) {
      auto marker = line_marker(taken.line);
      if (!marker) {
        return util::input_error(fmt::format("bad marker: {}", marker.error().message),
                                 where_of(taken.line));
      }
      if (*marker) {
        auto applies = (*marker)->evaluate(markers);
        if (!applies) {
          return util::input_error(
              fmt::format("cannot evaluate the marker: {}", applies.error().message),
              where_of(taken.line));
        }
        if (!*applies) {
          plan.skipped.push_back(
              {where_of(taken.line), taken.line.text, !taken.line.hashes.empty()});
          continue;
        }
      }
      auto package = take(taken);
      if (!package) return tl::unexpected(package.error());
      auto [it, fresh] = by_recipe.emplace(package->recipe, plan.flashfit.size());
      if (!fresh) {
        const TakenPackage& first = plan.flashfit[it->second];
        if (first.spec == package->spec) continue;  // the same pin twice (an include repeats it)
        return util::input_error(
            fmt::format("{} is named twice with different pins: '{}' ({}) and '{}'",
                        package->recipe, first.spec, first.where, package->spec),
            package->where, "keep one line for it");
      }
      plan.flashfit.push_back(std::move(*package));
    }
  }
  if (auto constrained = apply_recipe_constraints(plan, recipes, markers); !constrained)
    return tl::unexpected(constrained.error());
  return plan;
}

bool installer_runs(const InstallRequirementsPlan& plan) {
  // The parser writes every passed-through option under its long name
  // ("-e ./pkg", "--edit ./pkg" -> "--editable=./pkg").
  const auto editable = [](const pkg::PassthroughOption& option) {
    const std::string_view text = option.text;
    return text.substr(0, text.find_first_of(" =")) == "--editable";
  };
  return !plan.installer.empty() ||
         std::any_of(plan.passthrough.begin(), plan.passthrough.end(), editable);
}

std::string installer_requirements_text(const InstallRequirementsPlan& plan,
                                        const std::string& constraints_file) {
  if (!installer_runs(plan)) return {};
  std::string out = "# written by flashfit install -r: the lines it does not take\n";
  // A hash on a line flashfit takes put pip's run of the whole file into
  // hash-checking mode: the lines left to pip stay in it.
  if (takes_hashed_line(plan)) out += "--require-hashes\n";
  if (plan.sources.index_url) option_line(out, "--index-url", *plan.sources.index_url);
  for (const auto& url : plan.sources.extra_index_urls) option_line(out, "--extra-index-url", url);
  for (const auto& link : plan.sources.find_links) option_line(out, "--find-links", link);
  if (plan.sources.no_index) out += "--no-index\n";
  for (const auto& option : plan.passthrough) {
    out += fmt::format("# {}:{}\n{}\n", option.file, option.line, option.text);
  }
  if (!plan.constraints.empty() && !constraints_file.empty()) {
    option_line(out, "-c", constraints_file);
  }
  for (const auto& line : plan.installer) {
    out += fmt::format("# {}:{}\n", line.file, line.line);
    requirement_text(out, line);
  }
  return out;
}

bool hash_checking(const InstallRequirementsPlan& plan) {
  return takes_hashed_line(plan) ||
         std::any_of(plan.installer.begin(), plan.installer.end(),
                     [](const pkg::RequirementLine& line) { return !line.hashes.empty(); }) ||
         std::any_of(plan.passthrough.begin(), plan.passthrough.end(),
                     [](const pkg::PassthroughOption& option) {
                       return util::starts_with(option.text, "--require-hashes");
                     });
}

bool preload_check_before_lines(const InstallRequirementsPlan& plan, bool dry_run,
                                bool torch_installed) {
  return !dry_run && torch_installed && installer_runs(plan) && !plan.flashfit.empty();
}

bool names_torch(const pkg::RequirementLine& line) {
  if (line.requirement) return pkg::canonicalize_name(line.requirement->name) == "torch";
  // A bare wheel URL or path ("https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-...whl")
  // names torch by its file name.
  if (!line.location) return false;
  const std::string file = net::url_file_name(*line.location);
  const auto dash = file.find('-');
  return dash != std::string::npos && pkg::canonicalize_name(file.substr(0, dash)) == "torch";
}

std::optional<std::string> shared_run_pins(const InstallRequirementsPlan& plan, bool dry_run,
                                           std::string_view torch_version) {
  if (dry_run || plan.installer.empty() || plan.flashfit.empty() || torch_version.empty())
    return std::nullopt;
  auto version = pkg::Version::parse(torch_version);
  if (!version || !plan.passthrough.empty()) return std::nullopt;
  const auto names_torch_or_hashes = [](const pkg::RequirementLine& line) {
    return !line.hashes.empty() || names_torch(line);
  };
  if (std::any_of(plan.installer.begin(), plan.installer.end(), names_torch_or_hashes) ||
      std::any_of(plan.constraints.begin(), plan.constraints.end(), names_torch_or_hashes) ||
      takes_hashed_line(plan))
    return std::nullopt;
  return "torch==" + version->str() + "\n";
}

std::string installer_constraints_text(const InstallRequirementsPlan& plan) {
  std::string out;
  for (const auto& line : plan.constraints) requirement_text(out, line);
  return out;
}

}  // namespace flashfit::workflow
