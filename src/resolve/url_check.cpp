#include "resolve/url_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "net/http.hpp"
#include "resolve/catalog_cache.hpp"
#include "resolve/text_file.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"
#include "util/utc_time.hpp"

namespace flashfit::resolve {
namespace {

constexpr std::size_t kMaxChecksFile = std::size_t{8} << 20;
constexpr std::string_view kHeader = "#flashfit-url-checks 1\n";

const char* state_name(UrlState state) {
  return state == UrlState::exists ? "exists" : "missing";
}

// "url<TAB>exists|missing<TAB>detail<TAB>checked_at" lines; anything else is skipped (a cache).
std::map<std::string, UrlCheck> parse_checks(std::string_view text) {
  std::map<std::string, UrlCheck> out;
  for (std::string_view line : util::split(text, '\n')) {
    if (line.empty() || line.front() == '#') continue;
    auto fields = util::split(line, '\t');
    if (fields.size() != 4 || url_problem(fields[0])) continue;
    UrlCheck check;
    if (fields[1] == "exists") {
      check.state = UrlState::exists;
    } else if (fields[1] == "missing") {
      check.state = UrlState::missing;
    } else {
      continue;
    }
    check.detail = std::string(fields[2]);
    check.checked_at = std::string(fields[3]);
    out[std::string(fields[0])] = std::move(check);
  }
  return out;
}

std::string clean(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return text;
}

}  // namespace

UrlCheck head_url(const std::string& url) {
  net::HttpRequest request;
  request.url = url;
  request.head_only = true;
  request.connect_timeout = std::chrono::seconds(10);
  request.total_timeout = std::chrono::seconds(30);
  UrlCheck check;
  check.checked_at = util::now_utc();
  auto response = net::http_get(request);
  if (!response) {
    check.detail = response.error().message;
    return check;
  }
  check.detail = fmt::format("HTTP {}", response->status);
  if (response->status >= 200 && response->status < 300) {
    check.state = UrlState::exists;
  } else if (response->status == 404 || response->status == 410) {
    check.state = UrlState::missing;
  }
  return check;
}

std::optional<std::filesystem::path> url_checks_path(const std::filesystem::path& cache_root,
                                                     const std::string& recipe,
                                                     const std::string& source) {
  auto catalog = catalog_cache_path(cache_root, recipe, source);
  if (!catalog) return std::nullopt;
  return catalog->parent_path() / (source + ".url-checks.tsv");
}

std::map<std::string, UrlCheck>& UrlCheckStore::load(const std::string& recipe,
                                                     const std::string& source) {
  std::string key = recipe + '\0' + source;
  auto it = files_.find(key);
  if (it != files_.end()) return it->second;
  std::map<std::string, UrlCheck> checks;
  if (root_) {
    if (auto path = url_checks_path(*root_, recipe, source)) {
      if (auto text = detail::read_text_file(*path, kMaxChecksFile)) checks = parse_checks(*text);
    }
  }
  return files_.emplace(std::move(key), std::move(checks)).first->second;
}

const std::map<std::string, UrlCheck>& UrlCheckStore::answers(const std::string& recipe,
                                                              const std::string& source) {
  return load(recipe, source);
}

std::optional<UrlCheck> UrlCheckStore::known(const std::string& recipe,
                                             const Candidate& candidate) {
  auto& checks = load(recipe, candidate.source);
  auto it = checks.find(candidate.url);
  if (it == checks.end()) return std::nullopt;
  return it->second;
}

void UrlCheckStore::record(const std::string& recipe, const Candidate& candidate,
                           const UrlCheck& check) {
  if (!check.state) return;  // no answer: ask again next time
  auto& checks = load(recipe, candidate.source);
  checks[candidate.url] = check;
  if (!root_) return;
  auto path = url_checks_path(*root_, recipe, candidate.source);
  if (!path || !util::ensure_cache_dir(*root_, path->parent_path())) return;
  std::string text(kHeader);
  for (const auto& [url, c] : checks) {
    text += fmt::format("{}\t{}\t{}\t{}\n", url, state_name(*c.state), clean(c.detail),
                        clean(c.checked_at));
  }
  (void)util::write_file_atomic(*path, text);
}

bool missing_answer_stale(const UrlCheck& check, std::time_t now) {
  const auto at = util::parse_utc(check.checked_at);
  return !at || now - *at > kMissingAnswerLifetime.count();
}

bool needs_url_check(const Candidate& candidate) {
  bool catalog = candidate.role == SourceRole::upstream || candidate.role == SourceRole::community;
  return catalog && (util::starts_with(candidate.url, "https://") ||
                     util::starts_with(candidate.url, "http://"));
}

void confirm_pick(Resolution& r, const Recipe* recipe, const ResolveTarget& target,
                  const ResolveOptions& options, UrlCheckStore& store,
                  const ConfirmOptions& confirm) {
  const std::string recipe_name = recipe ? recipe->name : r.request.name;
  // A copy of the candidates to mark missing ones in, made only when one is:
  // copying thousands of catalog rows on every resolve cost 5% of it.
  std::optional<std::vector<Candidate>> marked;
  auto candidates = [&]() -> std::vector<Candidate>& {
    if (!marked) marked = *r.inputs;
    return *marked;
  };
  const std::time_t now = std::time(nullptr);
  auto mark_known = [&] {
    bool changed = false;
    const std::string* source = nullptr;  // the rows of one source come together
    const std::map<std::string, UrlCheck>* checks = nullptr;
    const std::vector<Candidate>& inputs = *r.inputs;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Candidate& c = inputs[i];
      if (c.missing || !needs_url_check(c)) continue;
      if (!source || *source != c.source) {
        source = &c.source;
        checks = &store.answers(recipe_name, c.source);
      }
      auto known = checks->find(c.url);
      if (known == checks->end() || known->second.state != UrlState::missing) continue;
      // Asked again below if it is picked: it may have been uploaded since.
      if (confirm.network && missing_answer_stale(known->second, now)) continue;
      candidates()[i].missing = fmt::format("{} when flashfit asked on {}", known->second.detail,
                                            known->second.checked_at);
      changed = true;
    }
    return changed;
  };
  auto redo = [&] { r = resolve(r.request, recipe, target, candidates(), options); };
  if (mark_known()) redo();
  std::size_t asked = 0;
  while (r.selected) {
    const Candidate& pick = *r.candidates[*r.selected].candidate;
    if (!needs_url_check(pick)) return;
    std::string note;
    auto known = store.known(recipe_name, pick);
    if (known && known->state == UrlState::exists) {
      note = fmt::format("its URL was confirmed to exist ({} on {})", known->detail,
                         known->checked_at);
    } else if (!confirm.network) {
      note = "its URL was not confirmed to exist (--offline)";
    } else if (asked == confirm.max_checks) {
      note = fmt::format(
          "its URL was not confirmed to exist ({} candidates before it were missing)", asked);
    } else {
      ++asked;
      UrlCheck check = head_url(pick.url);
      store.record(recipe_name, pick, check);
      if (check.state == UrlState::missing) {
        const std::string url = pick.url;  // pick lives in r.inputs, which redo replaces
        for (Candidate& c : candidates()) {
          if (c.url == url)
            c.missing = fmt::format("{} when flashfit asked on {}", check.detail, check.checked_at);
        }
        redo();
        continue;
      }
      note = check.state
                 ? fmt::format("its URL was confirmed to exist ({})", check.detail)
                 : fmt::format(
                       "its URL could not be confirmed to exist ({}); --offline skips this check",
                       check.detail);
    }
    r.candidates[*r.selected].notes.push_back(std::move(note));
    return;
  }
}

}  // namespace flashfit::resolve
