#include "resolve/variant_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "net/http.hpp"
#include "pkg/wheel_name.hpp"
#include "resolve/text_file.hpp"
#include "store/variant_record.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

constexpr const char* kSuffix = ".variant.json";
constexpr const char* kBasis = "its variant record";

bool is_http(const std::string& url) {
  return util::starts_with(url, "http://") || util::starts_with(url, "https://");
}

bool pure(const pkg::WheelName& wheel) {
  return std::all_of(wheel.tags.begin(), wheel.tags.end(),
                     [](const pkg::Tag& t) { return t.abi == "none" && t.platform == "any"; });
}

RecordText read_record(const std::string& url, bool network, RecordBudget& budget) {
  const std::string where = url + kSuffix;
  if (is_http(url)) {
    if (!network) return {std::nullopt, "not fetched (--offline)"};
    if (!budget.http) return {std::nullopt, "not fetched (an earlier record could not be fetched)"};
    net::HttpRequest request;
    request.url = where;
    request.max_bytes = store::kMaxVariantRecordBytes;
    request.connect_timeout = std::chrono::seconds(5);
    request.stall_timeout = std::chrono::seconds(10);
    request.total_timeout = std::chrono::seconds(15);
    auto response = net::http_get(request);
    if (!response) {
      budget.http = false;
      return {std::nullopt, "its variant record could not be fetched: " + response.error().message};
    }
    if (response->status == 404 || response->status == 410)
      return {std::nullopt, "no variant record beside it on the index"};
    if (response->status != 200) {
      return {std::nullopt, fmt::format("its variant record answered HTTP {}", response->status)};
    }
    return {std::move(response->body), {}};
  }
  if (util::starts_with(url, "/")) {
    std::error_code ec;
    if (!std::filesystem::exists(where, ec)) return {std::nullopt, "no variant record beside it"};
    auto text = detail::read_text_file(where, store::kMaxVariantRecordBytes);
    if (!text) return {std::nullopt, "its variant record is unreadable: " + text.error().message};
    return {std::move(*text), {}};
  }
  return {std::nullopt, "its variant record cannot be fetched from this kind of URL"};
}

}  // namespace

bool wants_variant_record(const Candidate& c, const Recipe* recipe) {
  if (!recipe || c.built_variant || c.record_doubt) return false;
  if (c.role != SourceRole::index && c.role != SourceRole::find_links) return false;
  auto wheel = pkg::parse_wheel_filename(c.filename);
  if (!wheel || pure(*wheel)) return false;
  return !pkg::decode_variant(wheel->version.local()).known();
}

std::optional<std::string> apply_variant_record(Candidate& c, const RecordText& read) {
  if (!read.text) {
    c.record_doubt = read.problem;
    return std::nullopt;
  }
  auto record = store::parse_variant_record(*read.text);
  auto refuse = [&](std::string why) -> std::optional<std::string> {
    c.record_doubt = "its variant record was refused: " + why;
    return fmt::format("{}: the variant record beside it was refused: {}", c.filename, why);
  };
  if (!record) return refuse(record.error().message);
  if (record->filename != c.filename) {
    return refuse(fmt::format("it describes another file ({})", util::printable(record->filename)));
  }
  if (c.sha256 && *c.sha256 != record->sha256) {
    return refuse(fmt::format("its sha256 {} is not the index's {} for this file", record->sha256,
                              *c.sha256));
  }
  const store::BuildRecord facts = store::build_record_of(*record);
  if (!facts.torch) {
    c.record_doubt = "its variant record does not say which torch it was built for";
    return std::nullopt;
  }
  pkg::VariantLabel v;
  v.raw = kBasis;
  v.torch = pkg::torch_minor(*facts.torch);
  if (facts.cuda && facts.cuda->cpu()) {
    v.cpu_only = true;
  } else if (facts.cuda) {
    v.cuda = facts.cuda->version;
  }
  v.cxx11_abi = facts.cxx11_abi;
  c.built_variant = std::move(v);
  // Its kernels are known when it uses no CUDA, or when the record lists some.
  if (!record->uses_cuda || !record->sass_archs.empty() || !record->ptx_archs.empty()) {
    c.built_archs = facts.archs;
    c.built_ptx = store::ptx_arch_names(*record);
  }
  return std::nullopt;
}

void attach_variant_records(std::vector<Candidate>& candidates, std::size_t first,
                            const Recipe* recipe, bool network, RecordBudget& budget,
                            std::vector<std::string>& warnings) {
  for (std::size_t i = first; i < candidates.size(); ++i) {
    Candidate& c = candidates[i];
    if (!wants_variant_record(c, recipe)) continue;
    if (budget.reads == 0) {
      c.record_doubt =
          fmt::format("its variant record was not read (at most {} are read per resolve)",
                      kMaxVariantRecordFetches);
      continue;
    }
    --budget.reads;
    if (auto warning = apply_variant_record(c, read_record(c.url, network, budget)))
      warnings.push_back(std::move(*warning));
  }
}

}  // namespace flashfit::resolve
