#include "resolve/gather.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "pkg/name.hpp"
#include "resolve/catalog.hpp"
#include "resolve/compiled_catalog.hpp"
#include "resolve/index_fetch.hpp"
#include "resolve/index_link_url.hpp"
#include "resolve/index_page.hpp"
#include "resolve/variant_records.hpp"
#include "store/wheel_cache.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

bool is_url(const std::string& s) {
  return util::starts_with(s, "http://") || util::starts_with(s, "https://");
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  const auto near = util::near_names(name, known, util::within(2));
  return near.empty() ? "" : fmt::format(" (did you mean '{}'?)", known[near.front().index]);
}

int default_priority(SourceRole role) {
  switch (role) {
    case SourceRole::cache:
      return 0;
    case SourceRole::index:
    case SourceRole::find_links:
      return 1;
    case SourceRole::upstream:
      return 2;
    case SourceRole::community:
      return 3;
  }
  return 9;
}

util::Result<void> apply_priority(std::vector<SourcePlan>& plan,
                                  const std::vector<std::string>& priority) {
  if (priority.empty()) return {};
  // Position in the configured list; a name beats its kind word ("index").
  auto rank = [&](const SourcePlan& p) -> int {
    for (std::size_t i = 0; i < priority.size(); ++i) {
      if (priority[i] == p.name) return static_cast<int>(i);
    }
    for (std::size_t i = 0; i < priority.size(); ++i) {
      bool index_like = p.role == SourceRole::index || p.role == SourceRole::find_links;
      if (priority[i] == "index" && index_like) return static_cast<int>(i);
    }
    return static_cast<int>(priority.size());
  };
  for (SourcePlan& p : plan) p.priority = rank(p);
  return {};
}

// Whether a file name is one of `package`'s wheels: its name part, made
// canonical (PEP 503), is the package's. A cheap filter before the resolver
// parses the whole name. The rows of one catalog or page spell the name the
// same way (thousands of "flash_attn-..."), so the last spelling's answer is
// kept rather than canonicalised again (a string built per row: 4.6% of a
// resolve's instructions).
class PackageFilter {
 public:
  explicit PackageFilter(const std::string& package) : package_(package) {}
  // `layout`, when given, is where the name's parts lie (a compiled catalog's
  // row: a wheel name, its name part up to the first '-').
  bool operator()(std::string_view filename,
                  const std::optional<pkg::WheelNameLayout>& layout = std::nullopt) {
    std::string_view name;
    if (layout) {
      name = filename.substr(0, layout->name_size);
    } else {
      if (!util::ends_with(filename, ".whl")) return false;
      const auto dash = filename.find('-');
      if (dash == std::string_view::npos) return false;
      name = filename.substr(0, dash);
    }
    if (!known_ || name != last_name_) {
      last_name_ = std::string(name);
      last_answer_ = pkg::canonicalize_name(name) == package_;
      known_ = true;
    }
    return last_answer_;
  }

 private:
  const std::string& package_;
  std::string last_name_;
  bool last_answer_ = false;
  bool known_ = false;
};

// Strings built by their constructors and moved in: assigning into an empty
// string takes the general replace path (a quarter of gathering a catalog).
void fill_candidate(Candidate& c, const SourcePlan& p, std::string_view filename,
                    std::string_view url) {
  c.filename = std::string(filename);
  c.url = std::string(url);
  c.source = p.name;
  c.role = p.role;
  c.priority = p.priority;
  c.source_enabled = p.enabled;
}

void add_links(Gathered& out, const SourcePlan& p, const std::string& package,
               const std::vector<IndexLink>& links, std::size_t& wheels) {
  PackageFilter names_package(package);
  for (const IndexLink& link : links) {
    if (!names_package(link.filename)) continue;
    Candidate& c = out.candidates.emplace_back();
    fill_candidate(c, p, link.filename, link.url);
    c.sha256 = link.sha256;
    c.requires_python = link.requires_python;
    c.yanked = link.yanked;
    c.yanked_reason = link.yanked_reason;
    c.core_metadata = link.core_metadata;
    ++wheels;
  }
}

void add_catalog(Gathered& out, const SourcePlan& p, const std::string& package,
                 const OpenedCatalog& catalog, std::size_t& wheels) {
  // Thousands of rows: one allocation, not a doubling series of moves.
  out.candidates.reserve(out.candidates.size() + catalog.size());
  PackageFilter names_package(package);
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    const CatalogRow row = catalog.row(i);
    if (!names_package(row.filename, row.name_layout)) continue;
    // Built in place: a Candidate is hundreds of bytes, and thousands are gathered.
    Candidate& c = out.candidates.emplace_back();
    fill_candidate(c, p, row.filename, row.url);
    c.name_layout = row.name_layout;
    c.url_rank = row.url_rank;
    if (row.sha256) c.sha256.emplace(*row.sha256);
    c.release_tag = std::string(row.tag);
    c.evidence = std::string(row.evidence);
    ++wheels;
  }
}

// A wheel `flashfit build` made is named like any local build
// (`name-1.0-cp311-cp311-linux_x86_64.whl`); what it was built against is in
// its cache entry's build record, and the rules read that record as they would a label.
void attach_build_record(Candidate& candidate, const std::vector<store::CacheEntry>& entries) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const store::CacheEntry& e) {
    return e.path.string() == candidate.url;
  });
  if (it == entries.end() || it->origin.kind != store::EntryOrigin::Kind::built) return;
  if (auto wheel = pkg::parse_wheel_filename(candidate.filename);
      !wheel || !wheel->version.local().empty())
    return;
  const store::BuildRecord& record = it->record;
  pkg::VariantLabel v;
  v.raw = "recorded by flashfit build";
  if (record.torch) v.torch = pkg::torch_minor(*record.torch);
  if (record.cuda && record.cuda->cpu()) {
    v.cpu_only = true;
  } else if (record.cuda) {
    v.cuda = record.cuda->version;
  }
  v.cxx11_abi = record.cxx11_abi;
  candidate.built_variant = std::move(v);
  candidate.built_archs = record.archs;
}

// A page from an index or a find-links URL; 404 from a simple index means
// "not on this index", which is not a failure.
void fetch_page(Gathered& out, SourceReport& report, const std::string& url,
                const std::string& package, bool simple) {
  using Outcome = IndexPageFetch::Outcome;
  IndexPageFetch page = fetch_index_page(url, simple);
  switch (page.outcome) {
    case Outcome::unreachable:
      report.status = "unreachable: " + page.error.message;
      out.warnings.push_back(
          fmt::format("source '{}' could not be reached ({}); continuing with the other sources",
                      report.plan.name, page.error.message));
      return;
    case Outcome::not_found:
      report.status = "not found";
      return;
    case Outcome::http_status:
      report.status = fmt::format("HTTP {}", page.status);
      out.warnings.push_back(
          fmt::format("source '{}' answered HTTP {} for {}; continuing with the other sources",
                      report.plan.name, page.status, url));
      return;
    case Outcome::unreadable:
      report.status = "unreadable: " + page.error.message;
      out.warnings.push_back(
          fmt::format("source '{}' sent a page flashfit cannot read ({}); continuing without it",
                      report.plan.name, page.error.message));
      return;
    case Outcome::ok:
      break;
  }
  add_links(out, report.plan, package, page.links, report.wheels);
  report.status = "ok";
}

}  // namespace

std::filesystem::path cache_wheel_dir(const std::filesystem::path& cache_root) {
  return cache_root / "wheels";
}

util::Result<std::vector<SourcePlan>> plan_sources(
    const Recipe* recipe, const Config& config, const SourceFlags& flags,
    const std::optional<std::filesystem::path>& cache_root) {
  std::vector<SourcePlan> plan;
  if (cache_root)
    plan.push_back({"cache", SourceRole::cache, cache_wheel_dir(*cache_root).string(), true, 0});
  if (flags.index_url) {
    plan.push_back({"index", SourceRole::index, *flags.index_url, true, 0});
  } else {
    for (const IndexConfig& index : config.indexes) {
      plan.push_back({index.name,
                      index.kind == IndexKind::simple ? SourceRole::index : SourceRole::find_links,
                      index.location, index.enabled, 0});
    }
  }
  for (std::size_t i = 0; i < flags.extra_index_urls.size(); ++i) {
    plan.push_back({fmt::format("extra-index-{}", i + 1), SourceRole::index,
                    flags.extra_index_urls[i], true, 0});
  }
  for (std::size_t i = 0; i < flags.find_links.size(); ++i) {
    plan.push_back({fmt::format("find-links-{}", i + 1), SourceRole::find_links,
                    flags.find_links[i], true, 0});
  }
  if (recipe) {
    for (const RecipeSource& s : recipe->sources) {
      SourceRole role = s.third_party ? SourceRole::community : SourceRole::upstream;
      plan.push_back({s.name, role, s.repository, s.enabled_by_default, 0});
    }
  }
  for (SourcePlan& p : plan) {
    p.priority = default_priority(p.role);
    bool network =
        p.role == SourceRole::index || (p.role == SourceRole::find_links && is_url(p.location));
    p.offline = flags.offline && network;
    p.no_index = flags.no_index && (p.role == SourceRole::index || p.role == SourceRole::upstream ||
                                    p.role == SourceRole::community);
  }
  std::vector<std::string> known;
  known.reserve(plan.size());
  for (const SourcePlan& p : plan) known.push_back(p.name);
  // The config file speaks for every package, so a source it names that this
  // package lacks (causal-conv1d has no community source) does not apply here;
  // parse_config has already refused names that are no source at all. A flag
  // is about this package, so a name it lacks is the user's mistake.
  enum class Absent { skip, refuse };
  auto set_enabled = [&](const std::vector<std::string>& names, bool enabled, const char* what,
                         Absent absent) -> util::Result<void> {
    for (const std::string& name : names) {
      auto it = std::find_if(plan.begin(), plan.end(),
                             [&](const SourcePlan& p) { return p.name == name; });
      if (it == plan.end() && absent == Absent::skip) continue;
      if (it == plan.end()) {
        return util::fail(
            util::ErrorKind::usage,
            fmt::format("{}: no source named '{}'{}", what, name, did_you_mean(name, known)), {},
            fmt::format("sources for this package: {}", util::join(known, ", ")));
      }
      it->enabled = enabled;
    }
    return {};
  };
  if (auto ok = set_enabled(config.enable, true, "config [sources] enable", Absent::skip); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = set_enabled(config.disable, false, "config [sources] disable", Absent::skip); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = set_enabled(flags.enable, true, "--source", Absent::refuse); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = set_enabled(flags.disable, false, "--no-source", Absent::refuse); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = apply_priority(plan, config.priority); !ok) return tl::unexpected(ok.error());
  return plan;
}

Gathered gather(const std::string& package, const Recipe* recipe,
                const std::vector<SourcePlan>& plan,
                const std::optional<std::filesystem::path>& cache_root) {
  Gathered out;
  // Room for the built-in catalogs' rows up front: a second catalog arriving
  // would otherwise move thousands of large candidates into a new vector
  // (a refreshed catalog in the cache may differ in size: this is only a hint).
  std::size_t expected = 0;
  for (const SourcePlan& p : plan) {
    const RecipeSource* source = recipe ? recipe->source(p.name) : nullptr;
    const CompiledCatalog* compiled = source ? find_compiled_catalog(*source) : nullptr;
    if (compiled) expected += compiled->rows.size();
  }
  out.candidates.reserve(expected);
  RecordBudget record_budget;
  std::vector<std::string> no_index_skipped;
  for (const SourcePlan& p : plan) {
    SourceReport report{p, 0, "ok"};
    const std::size_t source_first = out.candidates.size();
    if (p.no_index) {
      // A source that is off anyway is said as off: dropping --no-index would not bring it.
      report.status = p.enabled ? "not consulted (--no-index)" : "not consulted (disabled)";
      if (p.enabled) no_index_skipped.push_back(p.name);
    } else if (p.role == SourceRole::upstream || p.role == SourceRole::community) {
      const RecipeSource* source = recipe ? recipe->source(p.name) : nullptr;
      if (!source) continue;
      auto catalog = open_catalog(*recipe, *source, cache_root, out.warnings);
      if (!catalog) {
        report.status = "unreadable: " + catalog.error().message;
        out.warnings.push_back(fmt::format("catalog of '{}': {}", p.name, catalog.error().message));
      } else {
        report.plan.location = catalog->catalog.origin;
        add_catalog(out, p, package, *catalog, report.wheels);
        if (report.wheels == 0) {
          // Nothing known is not "nothing exists": say how to learn the releases.
          report.status = "no wheels in its catalog";
          out.warnings.push_back(
              fmt::format("the '{}' catalog of {} lists no wheels ({}): `flashfit catalog update "
                          "--package {} --source {}` "
                          "fetches its releases",
                          p.name, recipe->name, catalog->catalog.origin, recipe->name, p.name));
        } else if (!p.enabled) {
          report.status = "disabled (its wheels are judged for suggestions only)";
        }
      }
    } else if (!p.enabled) {
      report.status = "not consulted (disabled)";
    } else if (p.offline) {
      report.status = "not consulted (--offline)";
    } else if (p.role == SourceRole::cache) {
      // The local cache's entries (content-addressed; their sha256 is known).
      std::error_code ec;
      if (!cache_root || !std::filesystem::is_directory(p.location, ec)) {
        report.status = "empty";
      } else if (auto cache = store::WheelCache::open(*cache_root)) {
        std::vector<IndexLink> links;
        std::vector<store::CacheEntry> entries = cache->list(&out.warnings);
        links.reserve(entries.size());
        for (const store::CacheEntry& e : entries) {
          links.push_back(IndexLink{
              e.filename, e.path.string(), e.sha256, std::nullopt, false, {}, std::nullopt});
        }
        std::size_t first = out.candidates.size();
        add_links(out, p, package, links, report.wheels);
        for (std::size_t i = first; i < out.candidates.size(); ++i)
          attach_build_record(out.candidates[i], entries);
      } else {
        report.status = "unreadable: " + cache.error().message;
      }
    } else if (p.role == SourceRole::find_links && !is_url(p.location)) {
      if (auto links = list_wheel_directory(p.location)) {
        add_links(out, p, package, *links, report.wheels);
      } else {
        report.status = "unreadable: " + links.error().message;
        out.warnings.push_back(fmt::format("source '{}': {}", p.name, links.error().message));
      }
    } else if (p.role == SourceRole::index) {
      std::string root = p.location;
      while (!root.empty() && root.back() == '/') root.pop_back();
      root += '/';
      root += package;
      root += '/';
      fetch_page(out, report, root, package, true);
    } else {
      fetch_page(out, report, p.location, package, false);
    }
    // Label-less wheels of an index or find-links page: their published variant records.
    if (p.role == SourceRole::index || p.role == SourceRole::find_links) {
      attach_variant_records(out.candidates, source_first, recipe, !p.offline, record_budget,
                             out.warnings);
    }
    out.sources.push_back(std::move(report));
  }
  // "0 wheels considered" must not read as "none exist": say what was left out.
  if (!no_index_skipped.empty()) {
    out.warnings.push_back(fmt::format(
        "--no-index: {} not consulted (as pip consults no index, flashfit's release catalogs and "
        "indexes are left out too); only the cache and --find-links were; drop --no-index to let "
        "flashfit pick from them",
        util::join(no_index_skipped, ", ")));
  }
  return out;
}

}  // namespace flashfit::resolve
