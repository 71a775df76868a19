// Recipe lines vs installer lines; see requirements_split.hpp.
#include "workflow/requirements_split.hpp"

#include <string_view>

#include "net/http.hpp"
#include "pkg/version.hpp"
#include "pkg/wheel_name.hpp"

namespace flashfit::workflow {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "name-1.2.3.tar.gz" -> ("name", "1.2.3"): the version is after the last '-'.
std::optional<std::pair<std::string, std::string>> sdist_name(std::string_view file) {
  for (auto suffix : {".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip", ".tar"}) {
    if (!ends_with(file, suffix)) continue;
    const auto stem = file.substr(0, file.size() - std::string_view(suffix).size());
    const auto dash = stem.rfind('-');
    if (dash == std::string_view::npos || dash == 0) return std::nullopt;
    return std::pair{std::string(stem.substr(0, dash)), std::string(stem.substr(dash + 1))};
  }
  return std::nullopt;
}

struct ArchiveFacts {
  std::string name;
  std::string version;
  RecipeLineForm form;
};

std::optional<ArchiveFacts> archive_facts(std::string_view location) {
  // %XX-decoded: an index writes the '+' of a local version as %2B or %2b.
  const auto file = net::url_file_name(location);
  if (ends_with(file, ".whl")) {
    auto wheel = pkg::parse_wheel_filename(file);
    if (!wheel) return std::nullopt;
    return ArchiveFacts{wheel->name, wheel->version.str(), RecipeLineForm::wheel_url};
  }
  auto sdist = sdist_name(file);
  if (!sdist) return std::nullopt;
  return ArchiveFacts{sdist->first, sdist->second, RecipeLineForm::sdist};
}

// The project a bare VCS or source URL names in its fragment, as pip reads it:
// "...#egg=flash-attn&subdirectory=x" -> "flash-attn" (extras dropped).
std::optional<std::string> egg_name(std::string_view location) {
  const auto hash = location.find('#');
  if (hash == std::string_view::npos) return std::nullopt;
  std::string_view fragment = location.substr(hash + 1);
  while (!fragment.empty()) {
    const auto amp = fragment.find('&');
    const std::string_view item = fragment.substr(0, amp);
    if (item.rfind("egg=", 0) == 0) {
      std::string_view name = item.substr(4);
      name = name.substr(0, name.find('['));
      if (name.empty()) return std::nullopt;
      return std::string(name);
    }
    if (amp == std::string_view::npos) break;
    fragment.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

std::optional<pkg::SpecifierSet> exact_pin(const std::string& version) {
  auto parsed = pkg::Version::parse(version);
  if (!parsed) return std::nullopt;
  auto set = pkg::SpecifierSet::parse("==" + parsed->str());
  if (!set) return std::nullopt;
  return *set;
}

}  // namespace

RequirementsSplit split_requirements(const pkg::RequirementsFile& file,
                                     const resolve::RecipeBook& recipes) {
  RequirementsSplit out;
  for (const auto& line : file.lines) {
    const resolve::Recipe* recipe = nullptr;
    RecipeLine taken{line, {}, RecipeLineForm::spec, {}, std::nullopt};
    if (!line.constraint && line.requirement) {
      recipe = recipes.find(line.requirement->name);
      if (recipe && line.loose_specifier) {
        out.refused.push_back(line);
        continue;
      }
      if (recipe && line.requirement->url) {
        const auto url = *line.requirement->url;
        auto facts = archive_facts(url);
        // No wheel or sdist file name: a source (VCS, directory) that names no version.
        taken.form = facts ? facts->form : RecipeLineForm::source;
        taken.url = url;
        if (facts) {
          if (auto pin = exact_pin(facts->version)) taken.pin = *pin;
        }
      } else if (recipe) {
        taken.pin = line.requirement->specifier;
      }
    } else if (!line.constraint && line.location) {
      if (auto facts = archive_facts(*line.location)) {
        recipe = recipes.find(facts->name);
        if (recipe) {
          auto pin = exact_pin(facts->version);
          if (pin) taken.pin = *pin;
          taken.form = facts->form;
          taken.url = *line.location;
        }
      } else if (auto name = egg_name(*line.location)) {
        recipe = recipes.find(*name);
        if (recipe) {
          taken.form = RecipeLineForm::source;
          taken.url = *line.location;
        }
      }
    }
    if (recipe) {
      taken.recipe = recipe->name;
      out.flashfit.push_back(std::move(taken));
    } else {
      out.installer.push_back(line);
    }
  }
  return out;
}

}  // namespace flashfit::workflow
