#include "workflow/publish_plan.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "pkg/version.hpp"
#include "util/sha256.hpp"
#include "workflow/publish_fit.hpp"
#include "workflow/publish_pages.hpp"
#include "workflow/publish_sidecar.hpp"

namespace flashfit::workflow {
namespace {

bool has_key(const std::vector<EnvKey>& keys, const EnvKey& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Every torch build some wheel names: --for-torch placements and labels.
std::vector<EnvKey> page_keys(const std::vector<PublishedWheel>& tree) {
  std::vector<EnvKey> keys;
  for (const auto& w : tree) {
    for (const auto& k : w.facts.for_torch) {
      if (!has_key(keys, k)) keys.push_back(k);
    }
    if (auto k = label_key(w.facts); k && !has_key(keys, *k)) keys.push_back(*k);
  }
  std::sort(keys.begin(), keys.end(),
            [](const EnvKey& a, const EnvKey& b) { return a.page_name() < b.page_name(); });
  return keys;
}

}  // namespace

bool same_version(std::string_view a, std::string_view b) {
  auto va = pkg::Version::parse(a);
  auto vb = pkg::Version::parse(b);
  if (!va || !vb) return a == b;
  return *va == *vb;
}

bool is_env_page_name(std::string_view name) {
  return name.size() > 11 && name.rfind("torch-", 0) == 0 && name.find('/') == name.npos &&
         name.substr(name.size() - 5) == ".html";
}

void plan_pages(const std::vector<PublishedWheel>& tree, PublishPlan& plan,
                const std::vector<std::string>& root_files) {
  std::map<std::string, std::vector<PublishedWheel>> by_project;
  for (const auto& w : tree) by_project[w.facts.project].push_back(w);
  std::vector<std::string> projects;
  for (const auto& [project, wheels] : by_project) {
    projects.push_back(project);
    plan.pages.push_back(
        {fmt::format("simple/{}/index.html", project), simple_project_html(project, wheels)});
    plan.pages.push_back(
        {fmt::format("simple/{}/index.json", project), simple_project_json(project, wheels)});
  }
  plan.pages.push_back({"simple/index.html", simple_root_html(projects)});
  plan.pages.push_back({"simple/index.json", simple_root_json(projects)});

  // Arch pages by name: the torch build's key and the wheels listed.
  std::map<std::string, std::pair<EnvKey, std::vector<const PublishedWheel*>>> arch_pages;
  for (const auto& key : page_keys(tree)) {
    EnvPage page{key, key.page_name(), {}, {}};
    std::vector<const PublishedWheel*> listed;
    for (const auto& w : tree) {
      const auto why = why_not_on_page(w.facts, key);
      if (!why) {
        listed.push_back(&w);
        page.wheels.push_back(w.facts.filename);
        continue;
      }
      if (is_arch_limited(w.facts, key) && !why_not_on_page(w.facts, key, true)) {
        auto& arch = arch_pages[arch_page_name(key, w.facts)];
        arch.first = key;
        arch.second.push_back(&w);
      }
      page.left_out.push_back(fmt::format("{}: {}", w.facts.filename, *why));
    }
    plan.pages.push_back(
        {page.page,
         find_links_html(fmt::format("Wheels for torch {}", key.torch_version), listed)});
    plan.env_pages.push_back(std::move(page));
  }
  for (const auto& [name, arch] : arch_pages) {
    plan.pages.push_back({name, find_links_html(name.substr(0, name.size() - 5), arch.second)});
    EnvPage page{arch.first, name, {}, {}};
    for (const auto* w : arch.second) page.wheels.push_back(w->facts.filename);
    plan.env_pages.push_back(std::move(page));
  }
  for (const auto& name : root_files) {
    if (!is_env_page_name(name)) continue;
    const bool written = std::any_of(plan.pages.begin(), plan.pages.end(),
                                     [&](const PageFile& p) { return p.path == name; });
    if (!written)
      plan.pages.push_back({name, find_links_html(name.substr(0, name.size() - 5), {})});
  }
}

PublishPlan plan_publish(const std::vector<PublishCandidate>& inputs,
                         const std::vector<PublishedWheel>& existing, const PublishOptions& options,
                         const TargetState& state) {
  PublishPlan plan;
  std::map<std::string, std::string> unreadable;  // file name -> why its record is not read
  for (const auto& u : state.unreadable) unreadable[u.filename] = u.reason;
  std::map<std::string, PublishedWheel> tree;
  for (const auto& w : existing) tree[w.facts.filename] = w;
  std::map<std::string, std::string> seen;  // this run's file name -> sha256

  for (const auto& input : inputs) {
    const auto& name = input.facts.filename;
    auto refuse = [&](std::string reason) { plan.refused.push_back({name, std::move(reason)}); };
    if (input.refusal) {
      refuse(*input.refusal);
      continue;
    }
    if (auto it = seen.find(name); it != seen.end()) {
      if (it->second != input.facts.sha256)
        refuse("another input of this run has the same name and other bytes");
      continue;
    }
    seen[name] = input.facts.sha256;
    if (!same_version(input.facts.version, input.facts.metadata_version)) {
      refuse(
          fmt::format("its file name says version {} but its METADATA says {}: pip refuses it "
                      "(\"inconsistent version\")",
                      input.facts.version, input.facts.metadata_version));
      continue;
    }
    WheelFacts facts = input.facts;
    if (options.for_torch) {
      if (auto why = contradiction(facts, *options.for_torch)) {
        refuse(fmt::format("not for torch {}: {}", options.for_torch->torch_version, *why));
        continue;
      }
      if (!has_key(facts.for_torch, *options.for_torch))
        facts.for_torch.push_back(*options.for_torch);
    }
    if (auto bad = unreadable.find(name); bad != unreadable.end()) {
      if (!options.replace) {
        refuse(
            fmt::format("a file of this name is already published and its variant record "
                        "cannot be read ({}); --replace overwrites it",
                        bad->second));
        continue;
      }
      unreadable.erase(bad);  // this run's record replaces it
    }
    const auto old = tree.find(name);
    // The same file: the same bytes, or the same original of a rewritten copy
    // (upstream's version trap) whatever bytes an earlier rewrite gave.
    const bool same =
        old != tree.end() && (old->second.facts.sha256 == facts.sha256 ||
                              (!facts.original_sha256.empty() &&
                               old->second.facts.original_sha256 == facts.original_sha256));
    if (old != tree.end() && !same && !options.replace) {
      refuse(fmt::format(
          "a different file of this name is already published (sha256 {}, this one {}); "
          "--replace overwrites it",
          old->second.facts.sha256, facts.sha256));
      continue;
    }
    if (same) {
      // Same bytes: keep the earlier placements, add this run's.
      auto merged = old->second.facts.for_torch;
      for (const auto& k : facts.for_torch) {
        if (!has_key(merged, k)) merged.push_back(k);
      }
      if (merged == old->second.facts.for_torch) {
        plan.unchanged.push_back(name);
        continue;
      }
      facts = old->second.facts;
      facts.for_torch = merged;
    }
    const bool copy = old == tree.end() || old->second.facts.sha256 != facts.sha256;
    PublishedWheel published{facts, util::sha256_hex(input.metadata)};
    plan.uploads.push_back({input.path, input.bytes, copy, facts, input.metadata,
                            sidecar_json(published), input.staged});
    tree[name] = std::move(published);
  }

  std::vector<PublishedWheel> all;
  for (auto& [name, w] : tree) {
    plan.published.push_back(w.facts);
    all.push_back(std::move(w));
  }
  plan_pages(all, plan, state.root_files);
  for (const auto& [name, why] : unreadable) {
    plan.problems.push_back(
        fmt::format("{}: {}; publish lists the wheel on no page it writes (a project page it "
                    "does not rewrite keeps its link) and its name stays taken (--replace "
                    "overwrites it)",
                    name, why));
  }
  return plan;
}

}  // namespace flashfit::workflow
