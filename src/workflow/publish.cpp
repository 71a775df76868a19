#include "workflow/publish.hpp"

#include <fmt/core.h>
#include <stdlib.h>

#include <algorithm>
#include <iterator>

#include "binary/wheel_bytes.hpp"
#include "util/strings.hpp"
#include "workflow/publish_cache.hpp"
#include "workflow/publish_inspect.hpp"
#include "workflow/publish_pages.hpp"
#include "workflow/publish_plan.hpp"
#include "workflow/publish_sidecar.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

void say(const std::function<void(std::string_view)>& progress, const std::string& line) {
  if (progress) progress(line);
}

// Wheels named on the command line: files as given, directories' *.whl sorted.
util::Result<std::vector<fs::path>> expand_inputs(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> wheels;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<fs::path> found;
      for (fs::directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".whl" && it->is_regular_file(ec))
          found.push_back(it->path());
      }
      std::sort(found.begin(), found.end());
      if (found.empty())
        return util::input_error("no .whl files in this directory", input.string());
      wheels.insert(wheels.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(input, ec)) {
      wheels.push_back(input);
    } else {
      return util::input_error("no such wheel or directory", input.string());
    }
  }
  if (wheels.empty())
    return util::fail(util::ErrorKind::usage, "nothing to publish", {},
                      "name wheels or directories");
  return wheels;
}

// Whether every planned page is on the target with exactly these bytes.
util::Result<bool> pages_current(PublishTarget& target, const std::vector<PageFile>& pages) {
  for (const auto& page : pages) {
    auto have = target.read(page.path);
    if (!have) return tl::unexpected(have.error());
    if (!*have || **have != page.content) return false;
  }
  return true;
}

// Whether the target holds nothing publish wrote: no record, no root page.
util::Result<bool> holds_no_tree(PublishTarget& target) {
  auto records = target.list("files");
  if (!records) return tl::unexpected(records.error());
  if (!records->empty()) return false;
  auto root_page = target.read("simple/index.html");
  if (!root_page) return tl::unexpected(root_page.error());
  return !*root_page;
}

// Where inspection copies the named wheels: a directory of this publish's own
// in the temp directory, when a copy there can be moved into the target (the
// same file system); then each wheel is read once and written once, and its
// put is a rename. None for a dry run (nothing is written) or another target.
StagePlan stage_plan(PublishTarget& target, const PublishRequest& request) {
  StagePlan stage;
  if (request.dry_run || request.temp_dir.empty() || !target.can_move_from(request.temp_dir))
    return stage;
  std::string pattern = (request.temp_dir / "flashfit-publish-stage-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return stage;  // inspected from memory instead
  stage.dir = pattern;
  // The target's files by name (one directory read): a wheel already there
  // is not copied, so a re-publish writes nothing.
  if (auto present = target.list("files")) stage.present = std::move(*present);
  std::sort(stage.present.begin(), stage.present.end());
  return stage;
}

}  // namespace

util::Result<PublishedTree> read_tree(PublishTarget& target) {
  PublishedTree tree;
  tree.target = target.describe();
  auto names = target.list("files");
  if (!names) return tl::unexpected(names.error());
  for (const auto& name : *names) {
    constexpr std::string_view kSuffix = ".variant.json";
    if (!util::ends_with(name, kSuffix)) continue;
    auto text = target.read("files/" + name);
    if (!text) return tl::unexpected(text.error());
    if (!*text) continue;
    // A record that cannot be read still takes its wheel's name: another
    // file must not be put there unasked.
    const std::string wheel_name = name.substr(0, name.size() - kSuffix.size());
    auto unreadable = [&](const std::string& why) {
      tree.problems.push_back(fmt::format("files/{}: {}", name, why));
      tree.state.unreadable.push_back({wheel_name, fmt::format("files/{}: {}", name, why)});
    };
    auto wheel = parse_sidecar(**text);
    if (!wheel) {
      unreadable(wheel.error().message);
      continue;
    }
    if (wheel->facts.filename + std::string(kSuffix) != name) {
      unreadable(fmt::format("names another file ({})", wheel->facts.filename));
      continue;
    }
    tree.wheels.push_back(std::move(*wheel));
  }
  auto root = target.list("");
  if (!root) return tl::unexpected(root.error());
  tree.state.root_files = std::move(*root);
  PublishPlan pages;
  plan_pages(tree.wheels, pages, tree.state.root_files);
  tree.env_pages = std::move(pages.env_pages);
  return tree;
}

util::Result<PublishReport> publish_to(PublishTarget& target,
                                       const std::vector<PublishCandidate>& candidates,
                                       const PublishOptions& options, bool dry_run,
                                       const std::function<void(std::string_view)>& progress) {
  // A dry run writes nothing, not even the lock file (nor the directory).
  // Neither does a run into a target that holds no tree yet when nothing is
  // to be uploaded (every input refused): planned against the empty tree.
  // Only then is the target asked whether it holds one: every other run
  // lists it once, under the lock (a listing is a request on S3).
  if (!dry_run) {
    PublishReport report{target.describe(), false, plan_publish(candidates, {}, options)};
    if (report.plan.uploads.empty()) {
      auto fresh = holds_no_tree(target);
      if (!fresh) return tl::unexpected(fresh.error());
      if (*fresh) {
        report.plan.pages.clear();
        report.plan.env_pages.clear();
        return report;
      }
    }
  }
  std::unique_ptr<TargetLock> held;
  if (!dry_run) {
    auto lock = target.lock();
    if (!lock) return tl::unexpected(lock.error());
    held = std::move(*lock);
  }
  auto tree = read_tree(target);
  if (!tree) return tl::unexpected(tree.error());
  PublishReport report{target.describe(), dry_run,
                       plan_publish(candidates, tree->wheels, options, tree->state)};
  if (dry_run) return report;
  // Files first: a wheel, then its metadata file, then its record (what makes
  // it part of the tree). Pages last, so a page never names a missing file.
  std::vector<PutRequest> files;
  std::vector<const Upload*> wheel_of;  // per put: the upload whose wheel it is
  for (const auto& up : report.plan.uploads) {
    const std::string_view name = up.facts.filename;
    if (up.copy_wheel) {
      // Bytes held since inspection are the inspected bytes themselves: put
      // as they are. Otherwise the copy hashes what it reads and refuses a
      // file changed since.
      if (up.bytes)
        files.push_back({wheel_path(up.facts.filename), up.bytes->view(), {}, {}, name});
      else if (!up.staged.empty())  // inspection's own copy: moved, not copied
        files.push_back(
            {wheel_path(up.facts.filename), {}, up.staged, up.facts.sha256, name, true});
      else
        files.push_back({wheel_path(up.facts.filename), {}, up.source, up.facts.sha256, name});
      wheel_of.push_back(&up);
    }
    files.push_back({metadata_path(up.facts.filename), up.metadata, {}, {}, name});
    files.push_back({sidecar_path(up.facts.filename), up.sidecar, {}, {}, name});
    wheel_of.resize(files.size());
  }
  auto uploaded = target.put_all(files, [&](std::size_t i) {
    if (const Upload* up = wheel_of[i])
      say(progress, fmt::format("uploading {} ({} bytes)", up->facts.filename, up->facts.size));
  });
  if (!uploaded) return tl::unexpected(uploaded.error());
  // One fsync per directory the files went into, before any page names them.
  if (auto flushed = target.flush(); !flushed) return tl::unexpected(flushed.error());
  if (report.plan.uploads.empty()) {
    // No new file is not enough for a no-op: a publish interrupted after its
    // files and before its pages left wheels no page lists, and running it
    // again must write those pages.
    auto current = pages_current(target, report.plan.pages);
    if (!current) return tl::unexpected(current.error());
    if (*current) return report;  // nothing changed: a no-op
  }
  if (!target.relist_pages()) {
    // A page whose bytes are already there is left alone: adding one wheel to
    // an index of many projects rewrites the root, its project's pages and
    // the env pages, not every project's.
    std::vector<PutRequest> changed;
    for (const auto& page : report.plan.pages) {
      auto have = target.read(page.path);
      if (!have) return tl::unexpected(have.error());
      if (!*have || **have != page.content)
        changed.push_back({page.path, page.content, {}, {}, {}});
    }
    say(progress, fmt::format("writing {} pages ({} unchanged)", changed.size(),
                              report.plan.pages.size() - changed.size()));
    if (auto pages = target.put_all(changed); !pages) return tl::unexpected(pages.error());
    if (auto flushed = target.flush(); !flushed) return tl::unexpected(flushed.error());
    return report;
  }
  // No exclusive lock (S3): pages from a fresh listing, written after every
  // file they name; written again (bounded) while the listing still changes,
  // so of two publishers the later one's pages name both sets of wheels.
  std::vector<std::string> last_listing;
  for (int round = 0; round < 5; ++round) {
    auto listing = target.list("files");
    if (!listing) return tl::unexpected(listing.error());
    if (round > 0 && *listing == last_listing) break;
    last_listing = std::move(*listing);
    auto fresh = read_tree(target);
    if (!fresh) return tl::unexpected(fresh.error());
    PublishPlan pages;
    plan_pages(fresh->wheels, pages, fresh->state.root_files);
    say(progress, fmt::format("writing {} pages", pages.pages.size()));
    for (const auto& page : pages.pages) {
      auto put = target.put_bytes(page.path, page.content);
      if (!put) return tl::unexpected(put.error());
    }
    report.plan.pages = std::move(pages.pages);
  }
  return report;
}

util::Result<PublishReport> publish(const PublishRequest& request) {
  auto target = open_target(request.target, request.endpoint_url);
  if (!target) return tl::unexpected(target.error());
  std::vector<fs::path> named;
  if (!request.inputs.empty() || !request.from_cache) {
    auto wheels = expand_inputs(request.inputs);
    if (!wheels) return tl::unexpected(wheels.error());
    named = std::move(*wheels);
  }
  // An unusable target fails now, not after minutes of inspection.
  if (!request.dry_run) {
    if (auto usable = (*target)->check_usable(); !usable) return tl::unexpected(usable.error());
  }
  std::vector<PublishCandidate> candidates;
  if (request.from_cache) {
    auto cached = cache_candidates(request.cache_root, *request.from_cache, request.temp_dir,
                                   request.progress);
    if (!cached) return tl::unexpected(cached.error());
    candidates = std::move(*cached);
  }
  const StagePlan stage = named.empty() ? StagePlan{} : stage_plan(**target, request);
  auto inspected = inspect_all_for_publish(named, request.temp_dir, request.progress, {}, 0, stage);
  candidates.insert(candidates.end(), std::make_move_iterator(inspected.begin()),
                    std::make_move_iterator(inspected.end()));
  auto report =
      publish_to(**target, candidates, request.options, request.dry_run, request.progress);
  std::error_code ec;
  for (const auto& c : candidates) {
    if (!c.owned_dir.empty()) fs::remove_all(c.owned_dir, ec);
  }
  // The copies no put moved (refused, unchanged, a failed publish).
  if (!stage.dir.empty()) fs::remove_all(stage.dir, ec);
  return report;
}

util::Result<PublishReport> publish_built(const store::CacheEntry& built, const std::string& target,
                                          const std::filesystem::path& temp_dir,
                                          const std::function<void(std::string_view)>& progress) {
  auto opened = open_target(target);
  if (!opened) return tl::unexpected(opened.error());
  say(progress, fmt::format("inspecting {} (built)", built.filename));
  std::vector<PublishCandidate> candidates{inspect_for_publish(built.path, temp_dir)};
  apply_cache_entry(built, candidates.front());
  auto report = publish_to(**opened, candidates, PublishOptions{}, false, progress);
  std::error_code ec;
  if (!candidates.front().owned_dir.empty()) fs::remove_all(candidates.front().owned_dir, ec);
  return report;
}

util::Result<PublishedTree> list_published(std::string_view target,
                                           const std::optional<std::string>& endpoint_url) {
  auto opened = open_target(target, endpoint_url);
  if (!opened) return tl::unexpected(opened.error());
  auto tree = read_tree(**opened);
  if (!tree) return tl::unexpected(tree.error());
  // Not a tree publish wrote (a typo, a plain directory, a file): say so
  // rather than "0 wheels". A publish stopped before its pages has records.
  auto root_page = (*opened)->read("simple/index.html");
  if (!root_page) return tl::unexpected(root_page.error());
  if (!*root_page && tree->wheels.empty() && tree->state.unreadable.empty()) {
    return util::fail(util::ErrorKind::failed,
                      "not a published index (no simple/index.html, no files/*.variant.json)",
                      tree->target,
                      "give the TARGET a `flashfit publish --to` wrote (check the path), or "
                      "publish to it first");
  }
  return tree;
}

}  // namespace flashfit::workflow
