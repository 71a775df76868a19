#pragma once
// Variant records read from an index: a wheel on an index or find-links page
// whose name carries no variant label flashfit reads is judged by the record
// `flashfit publish` wrote beside it (`<wheel URL>.variant.json`,
// store/variant_record.hpp), as a cache entry is judged by its build record.
// A record that is missing, unreadable, malformed, about another file or
// silent on torch leaves the wheel's facts unknown: the candidate carries a
// `record_doubt` and the judge makes its fit an assumption, never a fact.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "resolve/candidate.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::resolve {

// At most this many records are fetched per gather (one resolve); the rest
// of the label-less wheels keep a doubt that says so.
inline constexpr std::size_t kMaxVariantRecordFetches = 32;

// Whether the candidate's facts would come from a record: a wheel of a
// package with a recipe, from an index or find-links source, not pure, whose
// file name carries no label flashfit reads and that has no record yet.
bool wants_variant_record(const Candidate& candidate, const Recipe* recipe);

// What reading the record gave: its bytes, or why there are none ("HTTP 404",
// "not fetched: ...").
struct RecordText {
  std::optional<std::string> text;
  std::string problem;
};

// Pure: the record's facts onto the candidate (built_variant, built_archs,
// built_ptx), or its record_doubt. Returns a warning for a record that was
// there but refused (malformed, another file, a sha256 the index contradicts).
std::optional<std::string> apply_variant_record(Candidate& candidate, const RecordText& read);

// What one gather may still spend on records: reads left, and whether HTTP is
// still tried (after a transport failure — refused, timed out, Ctrl-C — no
// further record is fetched, so a dead server costs one timeout, not 32).
struct RecordBudget {
  std::size_t reads = kMaxVariantRecordFetches;
  bool http = true;
};

// The shell: reads `<url>.variant.json` (net::http_get for http(s), the file
// for a local wheel) for each candidate from `first` on that wants one, while
// the budget lasts, and applies it. `network` false (--offline): no HTTP.
void attach_variant_records(std::vector<Candidate>& candidates, std::size_t first,
                            const Recipe* recipe, bool network, RecordBudget& budget,
                            std::vector<std::string>& warnings);

}  // namespace flashfit::resolve
