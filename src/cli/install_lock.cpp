// install --lock: probe, choose, install (workflow/install_lock), report.
#include "cli/install_lock.hpp"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/install_outcome_json.hpp"
#include "cli/lock_probe.hpp"
#include "cli/source_flags.hpp"
#include "cli/uninstall.hpp"
#include "resolve/target.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"
#include "workflow/install_lock.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

json differences_json(const std::vector<workflow::KeyDifference>& differences) {
  json out = json::array();
  for (const auto& d : differences) {
    out.push_back({{"fact", d.fact}, {"locked", d.locked}, {"here", d.here}});
  }
  return out;
}

// No lock for this environment: each file and the facts it differs in.
int refuse(const InstallLockCliRequest& request, const workflow::LockSelection& selection) {
  if (request.json) {
    json files = json::array();
    for (const auto& m : selection.mismatches) {
      files.push_back({{"file", m.file}, {"differences", differences_json(m.differences)}});
    }
    write_stdout(
        json{{"lock", nullptr}, {"fits", false}, {"mismatches", files}, {"ok", false}}.dump(2) +
        "\n");
    return 1;
  }
  std::string out;
  if (selection.mismatches.size() == 1 && selection.mismatches.front().file == request.path) {
    out = fmt::format("{}: locked for another environment: nothing installed\n", request.path);
    for (const auto& d : selection.mismatches.front().differences) {
      out += "  " + d.describe() + "\n";
    }
  } else {
    out = selection.mismatches.empty()
              ? fmt::format("{}: its index lists no lock: nothing installed\n", request.path)
              : fmt::format("{}: no lock fits this environment: nothing installed\n", request.path);
    for (const auto& m : selection.mismatches) {
      out += fmt::format("  {} is locked for another environment:\n", m.file);
      for (const auto& d : m.differences) out += "    " + d.describe() + "\n";
    }
  }
  out += "write one here: flashfit lock -r <your requirements> --dir <DIR>\n";
  write_stdout(out);
  return 1;
}

json line_json(const workflow::LockedLine& line) {
  return {{"name", line.name},
          {"version", line.version},
          {"url", line.url},
          {"sha256", line.sha256 ? json(*line.sha256) : json(nullptr)}};
}

std::string report_text(const std::string& file, const workflow::InstallLockOutcome& outcome,
                        bool dry_run) {
  std::string out = fmt::format("lock: {} (fits this environment)\n", file);
  if (outcome.verify_failure) {
    out += fmt::format("refused: {}\nnothing installed: the lock's bytes are not the file's\n",
                       *outcome.verify_failure);
    return out;
  }
  if (outcome.installer_lines > 0) {
    std::string state = dry_run                 ? "would install"
                        : !outcome.installer_ok ? "not run"
                        : *outcome.installer_ok ? "installed"
                                                : "failed: " + outcome.installer_failure;
    out += fmt::format("installer lines: {} with {}: {}\n  $ {}\n", outcome.installer_lines,
                       outcome.installer, state, util::join(outcome.installer_argv, " "));
    for (const auto& change : outcome.installer_changes)
      out += "  " + workflow::describe(change) + "\n";
  }
  if (!outcome.packages.empty()) out += "compiled packages:\n";
  for (const auto& run : outcome.packages) {
    out += fmt::format("  {} {}: {}\n", run.line.name, run.line.version,
                       run.ok ? run.detail : "FAILED " + run.detail);
  }
  for (const auto& back : outcome.rolled_back) {
    out += back.ok ? fmt::format("rolled back: {}: {}\n", back.package, back.outcome)
                   : fmt::format("NOT rolled back: {}: {}\n", back.package, back.outcome);
  }
  if (!outcome.unmet.empty()) {
    out += "dependencies of the compiled packages not satisfied (the lock does not hold them):\n";
    for (const auto& u : outcome.unmet) out += "  " + workflow::describe(u) + "\n";
  }
  const bool failed_package = !outcome.packages.empty() && !outcome.packages.back().ok;
  if (dry_run) {
    out += "dry run: nothing was fetched or installed\n";
  } else if (outcome.ok) {
    out += "installed exactly the locked files\n";
  } else if (outcome.installer_ok == false) {
    out +=
        "the installer's run failed: no compiled package was installed (pip changes nothing "
        "when a hash does not match)\n";
  } else if (failed_package) {
    out += "stopped: the failed package was rolled back";
    out += outcome.rolled_back.empty() ? "" : ", and the compiled packages before it as above";
    out += "; the installer's lines stay installed\n";
  } else {
    out +=
        "installed the locked files, but the compiled packages need what the lock does not "
        "hold: add those to the requirements and lock again\n";
  }
  return out;
}

json report_json(const std::string& file, const workflow::InstallLockOutcome& outcome,
                 bool dry_run) {
  json packages = json::array();
  for (const auto& run : outcome.packages) {
    json item = line_json(run.line);
    item["ok"] = run.ok;
    item["detail"] = run.detail;
    packages.push_back(item);
  }
  return {
      {"lock", file},
      {"fits", true},
      {"dry_run", dry_run},
      {"verify_failure", outcome.verify_failure ? json(*outcome.verify_failure) : json(nullptr)},
      {"installer",
       {{"name", outcome.installer},
        {"lines", outcome.installer_lines},
        {"argv", outcome.installer_argv},
        {"ok", outcome.installer_ok ? json(*outcome.installer_ok) : json(nullptr)},
        {"failure", outcome.installer_failure},
        {"changes", changes_json(outcome.installer_changes)}}},
      {"packages", packages},
      {"rolled_back", rolled_back_json(outcome.rolled_back)},
      {"unmet_dependencies", unmet_json(outcome.unmet)},
      {"ok", outcome.ok}};
}

}  // namespace

util::Result<int> run_install_lock(const InstallLockCliRequest& request) {
  if (!request.specs->empty() || !request.requirements->empty() || request.undo) {
    return util::fail(util::ErrorKind::usage,
                      "--lock installs what the lock names: it takes no SPEC, -r or --undo");
  }
  const resolve::SourceFlags& sources = *request.sources;
  if (sources.index_url || !sources.extra_index_urls.empty() || !sources.find_links.empty() ||
      !sources.enable.empty() || !sources.disable.empty() || sources.offline) {
    return util::fail(util::ErrorKind::usage,
                      "--lock takes no source flags: the lock's URLs are where its files come from",
                      {},
                      "to install from other sources, lock again with them: flashfit lock --dir");
  }
  auto probed = probe_for_key(*request.environment);
  if (!probed) return tl::unexpected(probed.error());
  const env::Environment& environment = *probed;
  bool dry_run = request.dry_run;
  auto what_if = what_if_from(*request.environment);
  if (!what_if) return tl::unexpected(what_if.error());
  if (what_if->any() && !dry_run) {
    dry_run = true;
    note(
        fmt::format("{} describe another environment than this interpreter's: a dry run, "
                    "nothing is installed",
                    util::join(what_if->describe(), " ")));
  }
  const workflow::LockKey here =
      workflow::lock_key_from(resolve::target_from_environment(environment));
  auto selection = workflow::select_lock(request.path, here);
  if (!selection) return tl::unexpected(selection.error());
  if (!selection->lock) return refuse(request, *selection);
  const std::string file = selection->file.string();
  auto unchecked = workflow::check_installable(*selection->lock);
  if (!unchecked) return tl::unexpected(unchecked.error());
  for (const std::string& name : *unchecked) {
    std::fprintf(stderr,
                 "flashfit: warning: %s: the lock has no sha256 for its file; its bytes are not "
                 "checked\n",
                 name.c_str());
  }
  note(fmt::format("{} fits this environment", file));
  // What the lock's writer said (e.g. a what-if lock whose installer lines were not resolved).
  for (const std::string& said : selection->lock->document.notes) {
    note(fmt::format("the lock notes: {}", util::printable(said, 400)));
  }
  auto setup = load_user_setup();
  if (!setup) return tl::unexpected(setup.error());
  auto cache_root = util::require_cache_root();
  if (!cache_root) return tl::unexpected(cache_root.error());

  workflow::InstallLockRequest install;
  install.lock = &*selection->lock;
  install.environment = &environment;
  install.book = &setup->book;
  install.cache_root = *cache_root;
  install.dry_run = dry_run;
  install.progress = [](std::string_view line) { note(line); };
  auto outcome = workflow::install_lock(install);
  if (!outcome) return tl::unexpected(outcome.error());
  write_stdout(request.json ? report_json(file, *outcome, dry_run).dump(2) + "\n"
                            : report_text(file, *outcome, dry_run));
  return outcome->ok ? 0 : 1;
}

}  // namespace flashfit::cli
