#pragma once
// Before a catalog wheel is presented, its download URL is asked for with an
// HTTP HEAD: a catalog row can be a prediction (a workflow-matrix cell that
// never uploaded, a URL a script guessed). A 404 marks the candidate missing
// and the next one is picked. Answers are kept next to the catalog in the
// cache (<cache>/catalogs/<recipe>/<source>.url-checks.tsv) until the next
// `flashfit catalog update`, so a URL is asked about once; `--offline` asks
// nothing (what was learnt before still counts). A 404 older than a day is
// asked again when it would be picked and the network may be used: release
// assets are uploaded for hours after their tag, so "missing" can end.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "resolve/resolver.hpp"

namespace flashfit::resolve {

enum class UrlState { exists, missing };

struct UrlCheck {
  std::optional<UrlState> state;  // nullopt: the question could not be answered
  std::string detail;             // "HTTP 404", "HTTP 200", or the transport error
  std::string checked_at;         // ISO 8601 UTC
};

// One HEAD (redirects followed, as GitHub's release downloads need): 2xx
// exists, 404 and 410 are missing, anything else or a transport failure is
// no answer.
UrlCheck head_url(const std::string& url);

// The answers already known, per (recipe, source) file under the cache root.
class UrlCheckStore {
 public:
  explicit UrlCheckStore(std::optional<std::filesystem::path> cache_root)
      : root_(std::move(cache_root)) {}
  std::optional<UrlCheck> known(const std::string& recipe, const Candidate& candidate);
  // Every answer kept for a (recipe, source): url -> check.
  const std::map<std::string, UrlCheck>& answers(const std::string& recipe,
                                                 const std::string& source);
  // Kept when the cache can be written; a failure to write only costs a later HEAD.
  void record(const std::string& recipe, const Candidate& candidate, const UrlCheck& check);

 private:
  std::map<std::string, UrlCheck>& load(const std::string& recipe, const std::string& source);
  std::optional<std::filesystem::path> root_;
  std::map<std::string, std::map<std::string, UrlCheck>> files_;  // file path -> url -> check
};

// The file of a (recipe, source)'s answers; `catalog update` removes it.
std::optional<std::filesystem::path> url_checks_path(const std::filesystem::path& cache_root,
                                                     const std::string& recipe,
                                                     const std::string& source);

inline constexpr std::chrono::seconds kMissingAnswerLifetime{24 * 3600};
// A missing answer older than kMissingAnswerLifetime at `now`, or of a time
// that does not read: worth asking again.
bool missing_answer_stale(const UrlCheck& check, std::time_t now);

// Whether a candidate's URL is one flashfit should confirm: a catalog row
// (an index listed it, a local file exists) with an http(s) URL.
bool needs_url_check(const Candidate& candidate);

struct ConfirmOptions {
  bool network = true;         // false (--offline): only what the store already knows
  std::size_t max_checks = 8;  // HEAD requests at most; then the pick is presented unconfirmed
};

// Applies known-missing URLs, then confirms the pick: while it is an
// unconfirmed catalog URL, HEAD it; a 404 marks it missing and the resolution
// is redone. The pick's notes say what was confirmed. `r` is replaced.
void confirm_pick(Resolution& r, const Recipe* recipe, const ResolveTarget& target,
                  const ResolveOptions& options, UrlCheckStore& store,
                  const ConfirmOptions& confirm);

}  // namespace flashfit::resolve
